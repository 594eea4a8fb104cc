/** People's dismissed merge suggestions on PostgreSQL (migration 068), as SQLite's clusterDismissals.ts. */
import type { PgDb } from '../../platform/pgDb.js';
import { orderedPair, type ClusterDismissalStore } from '../clusterDismissals.js';

export function pgClusterDismissals(db: PgDb): ClusterDismissalStore {
  return {
    async dismiss(collectionId, a, b, userId) {
      const [x, y] = orderedPair(a, b);
      await db.query(
        `INSERT INTO cluster_dismissals (dataset_id, a, b, dismissed_by, dismissed_at) VALUES ($1, $2, $3, $4, now())
         ON CONFLICT DO NOTHING`,
        [collectionId, x, y, userId],
      );
    },
    list: async (collectionId) =>
      (
        await db.many<{ a: string; b: string }>(
          `SELECT a, b FROM cluster_dismissals WHERE dataset_id = $1 ORDER BY a COLLATE "C", b COLLATE "C"`,
          [collectionId],
        )
      ).map((r) => [r.a, r.b] as [string, string]),
  };
}
