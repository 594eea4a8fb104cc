import type { CollectionStore } from '../storage.js';
import type { Db } from './database.js';
import { toCollection, type CollectionRow } from './rows.js';

export function sqliteCollectionStore(db: Db): CollectionStore {
  const getOne = db.prepare(`SELECT * FROM collections WHERE id = ?`);
  return {
    async create(c) {
      db.prepare(
        `INSERT INTO collections (id, organization_id, name, icon, type, created_at, updated_at, created_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(c.id, c.organizationId, c.name, c.icon, c.type, c.createdAt, c.updatedAt, c.createdById);
      return toCollection(getOne.get(c.id) as CollectionRow);
    },
    async get(id) {
      const row = getOne.get(id) as CollectionRow | undefined;
      return row ? toCollection(row) : null;
    },
    async list(organizationId) {
      const rows = db
        .prepare(`SELECT * FROM collections WHERE organization_id = ? ORDER BY created_at, id`)
        .all(organizationId) as CollectionRow[];
      return rows.map(toCollection);
    },
    async update(id, patch, at) {
      const row = getOne.get(id) as CollectionRow | undefined;
      if (!row) return null;
      db.prepare(`UPDATE collections SET name = ?, icon = ?, updated_at = ? WHERE id = ?`).run(
        patch.name ?? row.name,
        patch.icon === undefined ? row.icon : patch.icon,
        at,
        id,
      );
      return toCollection(getOne.get(id) as CollectionRow);
    },
  };
}
