import { statSync } from 'node:fs';
import type { UsageRow, UsageStore } from '../adminStores.js';
import type { Db } from './database.js';

type Row = {
  dataset_id: string;
  status: string;
  processing_status: UsageRow['processingStatus'];
  n: number;
  b: number;
};

/** Counts and sizes for the storage screen on SQLite. */
export function sqliteUsageStore(db: Db): UsageStore {
  const grouped = db.prepare(
    `SELECT dataset_id, status, processing_status, count(*) AS n, coalesce(sum(size_bytes), 0) AS b
     FROM media WHERE organization_id = ? AND type != 'folder'
     GROUP BY dataset_id, status, processing_status ORDER BY dataset_id, status, processing_status`,
  );
  return {
    async byCollection(organizationId) {
      return (grouped.all(organizationId) as Row[]).map((r) => ({
        collectionId: r.dataset_id,
        status: r.status,
        processingStatus: r.processing_status,
        items: r.n,
        bytes: r.b,
      }));
    },
    async databaseBytes() {
      const pages =
        (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
      const wal = db.name === ':memory:' ? 0 : (statSync(`${db.name}-wal`, { throwIfNoEntry: false })?.size ?? 0);
      return pages + wal;
    },
  };
}
