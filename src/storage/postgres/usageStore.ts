import type { PgDb } from '../../platform/pgDb.js';
import type { UsageRow, UsageStore } from '../adminStores.js';

type Row = {
  dataset_id: string;
  status: string;
  processing_status: UsageRow['processingStatus'];
  n: number;
  b: number;
};

/** Counts and sizes for the storage screen on PostgreSQL, as on SQLite (sqlite/usageStore.ts). */
export function pgUsageStore(db: PgDb): UsageStore {
  return {
    async byCollection(organizationId) {
      const rows = await db.many<Row>(
        `SELECT dataset_id, status, processing_status, count(*) AS n, coalesce(sum(size_bytes), 0)::bigint AS b
         FROM media WHERE organization_id = $1 AND type != 'folder'
         GROUP BY dataset_id, status, processing_status ORDER BY dataset_id, status, processing_status`,
        [organizationId],
      );
      return rows.map((r) => ({
        collectionId: r.dataset_id,
        status: r.status,
        processingStatus: r.processing_status,
        items: Number(r.n),
        bytes: Number(r.b),
      }));
    },
    async databaseBytes() {
      const row = await db.one<{ bytes: number }>(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`,
        [db.schema],
      );
      return Number(row?.bytes ?? 0);
    },
  };
}
