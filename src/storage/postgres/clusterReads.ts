/**
 * The face clusters' reads on PostgreSQL: counts, listings, one cluster, its items, an object's cluster.
 * A listing reads its page's previews and item counts in one statement, not one per cluster; an item count
 * walks the cluster's members (cluster_members_by_cluster) and looks each item up, whatever the library's size.
 * SQLite: src/storage/sqlite/clusterReads.ts.
 */
import type { ClusterListOptions, ClusterStore, ClusterSummary } from '../../index/faces/types.js';
import { vectorFromBlob } from '../../index/faces/vectorBlob.js';
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
  name: string | null;
  hidden: boolean;
  pinned: boolean;
  cover_object_id: string | null;
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
  SELECT c.id, c.dataset_id, c.model_id, c.size, c.created_at, c.updated_at, c.name, c.hidden, c.pinned,
         cv.object_id AS cover_object_id,
         p.object_id AS preview_object_id, o.blob_key AS preview_blob_key, o.media_id AS preview_media_id,
         o.frame_id AS preview_frame_id,
         (SELECT count(*) FROM (SELECT DISTINCT media_id FROM cluster_members WHERE cluster_id = c.id) cm
            JOIN media m ON m.id = cm.media_id WHERE m.status = 'active' AND m.is_current) AS media_count
    FROM (SELECT * ${from}) c
    LEFT JOIN LATERAL (
      SELECT cm.object_id FROM cluster_members cm WHERE cm.object_id = c.cover_object_id AND cm.cluster_id = c.id LIMIT 1
    ) cv ON true
    LEFT JOIN LATERAL (
      SELECT coalesce(cv.object_id, c.preview_object_id,
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
  name: row.name,
  hidden: row.hidden,
  pinned: row.pinned,
  coverObjectId: row.cover_object_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The listings' filter: a collection's clusters of at least a size, of one model when one is given ($1..$3), visible unless asked. */
const listFilter = (opts: ClusterListOptions) =>
  `FROM clusters WHERE dataset_id = $1${opts.includeHidden ? '' : ' AND NOT hidden'} AND size >= $2` +
  (opts.modelId ? ' AND model_id = $3' : '');
const listParams = (collectionId: string, opts: ClusterListOptions) => {
  const minSize = Math.max(1, opts.minSize ?? 1);
  return opts.modelId ? [collectionId, minSize, opts.modelId] : [collectionId, minSize];
};

/** The edits (clusterEdits.ts). */
export type ClusterEditNames = 'updateCluster' | 'mergeClusters' | 'moveFaces';

export function pgClusterReads(db: PgDb): Omit<ClusterStore, 'assignPending' | ClusterEditNames> {
  return {
    async pendingCount(collectionId) {
      const row = collectionId
        ? await db.one<{ n: number }>(`SELECT count(*) AS n FROM cluster_pending WHERE dataset_id = $1`, [collectionId])
        : await db.one<{ n: number }>(`SELECT count(*) AS n FROM cluster_pending`);
      return row!.n;
    },

    async listClusters(collectionId, opts = {}) {
      const params = listParams(collectionId, opts);
      const n = params.length;
      const order = `(name IS NULL), size DESC, id`;
      const rows = await db.many<SummaryRow>(
        `${summaries(`${listFilter(opts)} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`)}
         ORDER BY (c.name IS NULL), c.size DESC, c.id`,
        [...params, opts.limit ?? 50, opts.offset ?? 0],
      );
      return rows.map(toSummary);
    },

    async countClusters(collectionId, opts = {}) {
      const row = await db.one<{ n: number }>(
        `SELECT count(*) AS n ${listFilter(opts)}`,
        listParams(collectionId, opts),
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

    async clusterFaces(clusterId, page) {
      const rows = await db.many<{ object_id: string; media_id: string; blob_key: string | null; manual: boolean }>(
        `SELECT cm.object_id, cm.media_id, o.blob_key, pin.cluster_id IS NOT NULL AS manual
           FROM cluster_members cm JOIN detected_objects o ON o.id = cm.object_id
           LEFT JOIN cluster_pins pin ON pin.object_id = cm.object_id AND pin.model_id = cm.model_id
            AND pin.cluster_id = cm.cluster_id
          WHERE cm.cluster_id = $1 ORDER BY cm.similarity DESC, cm.object_id LIMIT $2 OFFSET $3`,
        [clusterId, page.limit, page.offset],
      );
      return rows.map((r) => ({ objectId: r.object_id, mediaId: r.media_id, blobKey: r.blob_key, manual: r.manual }));
    },

    async clusterCentroids(collectionId, limit) {
      const rows = await db.many<{ id: string; model_id: string; size: number; name: string | null; centroid: Buffer }>(
        `SELECT id, model_id, size, name, centroid FROM clusters WHERE dataset_id = $1 AND NOT hidden
          ORDER BY size DESC, id LIMIT $2`,
        [collectionId, limit],
      );
      return rows.map((r) => ({
        id: r.id,
        modelId: r.model_id,
        size: r.size,
        name: r.name,
        centroid: vectorFromBlob(r.centroid),
      }));
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
