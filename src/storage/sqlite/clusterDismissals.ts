/** People's dismissed merge suggestions on SQLite (migration 035, storage/clusterDismissals.ts). */
import { orderedPair, type ClusterDismissalStore } from '../clusterDismissals.js';
import type { Db } from './database.js';

export function sqliteClusterDismissals(db: Db): ClusterDismissalStore {
  const insert = db.prepare(
    `INSERT INTO cluster_dismissals (dataset_id, a, b, dismissed_by, dismissed_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT DO NOTHING`,
  );
  const select = db.prepare(`SELECT a, b FROM cluster_dismissals WHERE dataset_id = ? ORDER BY a, b`).raw();
  return {
    async dismiss(collectionId, a, b, userId) {
      const [x, y] = orderedPair(a, b);
      insert.run(collectionId, x, y, userId, new Date().toISOString());
    },
    list: async (collectionId) => select.all(collectionId) as Array<[string, string]>,
  };
}
