import type { PgDb } from '../../platform/pgDb.js';
import type { DuplicateStore } from '../duplicateStore.js';
import {
  EXACT_GROUPS_SQL,
  groupRows,
  IMAGE_VECTORS_SQL,
  memberKey,
  toDismissal,
  toGroup,
  toScan,
  vectorRows,
  type ScanRow,
} from '../sqlite/duplicateStore.js';

/** Duplicate scans, their groups and dismissals on PostgreSQL (as SQLite's duplicateStore.ts). */
export function pgDuplicateStore(db: PgDb): DuplicateStore {
  const p = (n: number) => `$${n}`;
  return {
    exactGroups: async (collectionId) => groupRows(await db.many(EXACT_GROUPS_SQL(p), [collectionId, true])),
    async imageVectors(collectionId, modelId, after, limit) {
      const rows = await db.many<{ object_id: string; media_id: string; vector: Buffer }>(IMAGE_VECTORS_SQL(p), [
        modelId,
        collectionId,
        true,
        after ?? '',
        limit,
      ]);
      return vectorRows(rows);
    },
    async saveScan(scan, groups) {
      await db.tx(async (tx) => {
        await tx.query(`DELETE FROM duplicate_groups WHERE dataset_id = $1`, [scan.collectionId]);
        await tx.query(
          `INSERT INTO duplicate_scans (dataset_id, model_id, threshold, items, scanned_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (dataset_id) DO UPDATE SET model_id = excluded.model_id, threshold = excluded.threshold,
             items = excluded.items, scanned_at = excluded.scanned_at`,
          [scan.collectionId, scan.modelId, scan.threshold, scan.items, scan.scannedAt],
        );
        for (let i = 0; i < groups.length; i += 500) {
          const part = groups.slice(i, i + 500);
          await tx.query(
            `INSERT INTO duplicate_groups (dataset_id, ord, kind, similarity, media_ids)
             SELECT $1, * FROM unnest($2::int[], $3::text[], $4::float8[], $5::text[])`,
            [
              scan.collectionId,
              part.map((_, j) => i + j),
              part.map((g) => g.kind),
              part.map((g) => g.similarity),
              part.map((g) => memberKey(g.mediaIds)),
            ],
          );
        }
      });
    },
    async getScan(collectionId) {
      const row = await db.one<ScanRow>(`SELECT * FROM duplicate_scans WHERE dataset_id = $1`, [collectionId]);
      return row ? toScan(row) : null;
    },
    groups: async (collectionId) =>
      (
        await db.many<{ kind: 'exact' | 'near'; similarity: number; media_ids: string }>(
          `SELECT kind, similarity, media_ids FROM duplicate_groups WHERE dataset_id = $1 ORDER BY ord`,
          [collectionId],
        )
      ).map(toGroup),
    async dismiss(collectionId, d) {
      await db.query(
        `INSERT INTO duplicate_dismissals (dataset_id, media_ids, dismissed_by, dismissed_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING`,
        [collectionId, memberKey(d.mediaIds), d.dismissedById, d.dismissedAt],
      );
    },
    dismissals: async (collectionId) =>
      (
        await db.many<{ media_ids: string; dismissed_by: string; dismissed_at: string }>(
          `SELECT media_ids, dismissed_by, dismissed_at FROM duplicate_dismissals WHERE dataset_id = $1
           ORDER BY dismissed_at, media_ids`,
          [collectionId],
        )
      ).map(toDismissal),
  };
}
