/**
 * The face clusters' reads on PostgreSQL: counts, listings, one cluster, its items, an object's cluster.
 * A listing reads its page's previews and item counts in one statement, not one per cluster; an item count
 * walks the cluster's members (cluster_members_by_cluster) and looks each item up, whatever the library's size.
 * SQLite: src/storage/sqlite/clusterReads.ts.
 */
import type { ClusterStore, ClusterSummary } from '../../index/faces/types.js';
import type { PgDb } from '../../platform/pgDb.js';

/**
 * The browse filter for `clusterId`, for the media store's browse: `param` is the placeholder holding
 * the cluster id (`$3`). cluster_members_by_cluster covers the subquery; a cluster of another collection
 * matches nothing because browse also pins m.dataset_id.
 */
export const clusterBrowseClause = (param: string): string =>
  `m.id IN (SELECT media_id FROM cluster_members WHERE cluster_id = ${param})`;

interface SummaryRow {
  id: string;
  dataset_id: string;
  model_id: string;
  size: number;
  created_at: string;
  updated_at: string;
  preview_object_id: string | null;
  preview_blob_key: string | null;
  preview_media_id: string | null;
  preview_frame_id: string | null;
  media_count: number;
}

/**
 * Summaries of the clusters `from` selects (a FROM/WHERE/ORDER/LIMIT tail over `clusters c`): the preview is
 * the stored one, or while a refresh is due the member most like the centroid when it joined.
 */
const summaries = (from: string) => `
  SELECT c.id, c.dataset_id, c.model_id, c.size, c.created_at, c.updated_at,
         p.object_id AS preview_object_id, o.blob_key AS preview_blob_key, o.media_id AS preview_media_id,
         o.frame_id AS preview_frame_id,
         (SELECT count(*) FROM (SELECT DISTINCT media_id FROM cluster_members WHERE cluster_id = c.id) cm
            JOIN media m ON m.id = cm.media_id WHERE m.status = 'active' AND m.is_current) AS media_count
    FROM (SELECT * ${from}) c
    LEFT JOIN LATERAL (
      SELECT coalesce(c.preview_object_id,
        (SELECT object_id FROM cluster_members WHERE cluster_id = c.id ORDER BY similarity DESC LIMIT 1)) AS object_id
    ) p ON true
    LEFT JOIN detected_objects o ON o.id = p.object_id`;

const toSummary = (row: SummaryRow): ClusterSummary => ({
  id: row.id,
  modelId: row.model_id,
  size: row.size,
  mediaCount: row.media_count,
  previewObjectId: row.preview_object_id,
  previewBlobKey: row.preview_blob_key,
  previewMediaId: row.preview_media_id,
  previewFrameId: row.preview_frame_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The listings' filter: a collection's clusters of at least a size, of one model when one is given ($1..$3). */
const listFilter = (modelId: string | undefined) =>
  `FROM clusters WHERE dataset_id = $1 AND size >= $2${modelId ? ' AND model_id = $3' : ''}`;
const listParams = (collectionId: string, minSize: number, modelId: string | undefined) =>
  modelId ? [collectionId, minSize, modelId] : [collectionId, minSize];

export function pgClusterReads(db: PgDb): Omit<ClusterStore, 'assignPending'> {
  return {
    async pendingCount(collectionId) {
      const row = collectionId
        ? await db.one<{ n: number }>(`SELECT count(*) AS n FROM cluster_pending WHERE dataset_id = $1`, [collectionId])
        : await db.one<{ n: number }>(`SELECT count(*) AS n FROM cluster_pending`);
      return row!.n;
    },

    async listClusters(collectionId, opts = {}) {
      const minSize = Math.max(1, opts.minSize ?? 1);
      const params = listParams(collectionId, minSize, opts.modelId);
      const n = params.length;
      const rows = await db.many<SummaryRow>(
        `${summaries(`${listFilter(opts.modelId)} ORDER BY size DESC, id LIMIT $${n + 1} OFFSET $${n + 2}`)}
         ORDER BY c.size DESC, c.id`,
        [...params, opts.limit ?? 50, opts.offset ?? 0],
      );
      return rows.map(toSummary);
    },

    async countClusters(collectionId, opts = {}) {
      const minSize = Math.max(1, opts.minSize ?? 1);
      const row = await db.one<{ n: number }>(
        `SELECT count(*) AS n ${listFilter(opts.modelId)}`,
        listParams(collectionId, minSize, opts.modelId),
      );
      return row!.n;
    },

    async getCluster(id) {
      const row = await db.one<SummaryRow>(summaries(`FROM clusters WHERE id = $1 AND size > 0`), [id]);
      return row ? { ...toSummary(row), collectionId: row.dataset_id } : null;
    },

    async mediaIdsInCluster(clusterId) {
      const rows = await db.many<{ media_id: string }>(
        `SELECT DISTINCT media_id FROM cluster_members WHERE cluster_id = $1 ORDER BY media_id`,
        [clusterId],
      );
      return rows.map((r) => r.media_id);
    },

    async clusterOfObject(objectId) {
      const row = await db.one<{ cluster_id: string }>(
        `SELECT cluster_id FROM cluster_members WHERE object_id = $1 LIMIT 1`,
        [objectId],
      );
      return row?.cluster_id ?? null;
    },
  };
}
