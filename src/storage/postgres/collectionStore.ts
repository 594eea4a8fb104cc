import type { PgDb } from '../../platform/pgDb.js';
import type { CollectionStore } from '../storage.js';
import { toCollection, type CollectionRow } from '../sqlite/rows.js';

/** Collections on PostgreSQL (table collections). */
export function pgCollectionStore(db: PgDb): CollectionStore {
  const getOne = (id: string) => db.one<CollectionRow>(`SELECT * FROM collections WHERE id = $1`, [id]);
  return {
    async create(c) {
      const row = await db.one<CollectionRow>(
        `INSERT INTO collections (id, organization_id, name, icon, type, created_at, updated_at, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [c.id, c.organizationId, c.name, c.icon, c.type, c.createdAt, c.updatedAt, c.createdById],
      );
      return toCollection(row!);
    },
    async get(id) {
      const row = await getOne(id);
      return row ? toCollection(row) : null;
    },
    async list(organizationId) {
      const rows = await db.many<CollectionRow>(
        `SELECT * FROM collections WHERE organization_id = $1 ORDER BY created_at, id`,
        [organizationId],
      );
      return rows.map(toCollection);
    },
    async update(id, patch, at) {
      // An icon given as null clears it; absent keeps it ($3: whether the patch names the icon).
      const row = await db.one<CollectionRow>(
        `UPDATE collections SET name = coalesce($2, name), icon = CASE WHEN $3 THEN $4 ELSE icon END, updated_at = $5
         WHERE id = $1 RETURNING *`,
        [id, patch.name ?? null, patch.icon !== undefined, patch.icon ?? null, at],
      );
      return row ? toCollection(row) : null;
    },
  };
}
