import type { ClusterStore, ClusterSummary } from '../../index/faces/types.js';
import type { Db } from './database.js';

/** A clusters row as the listings read it. */
interface SummaryRow {
  id: string;
  dataset_id: string;
  model_id: string;
  size: number;
  preview_object_id: string | null;
  created_at: string;
  updated_at: string;
}

const SUMMARY_COLUMNS = `id, dataset_id, model_id, size, preview_object_id, created_at, updated_at`;

/** The listings' filter: a collection's clusters of at least a size, of one model when one is given. */
const listFilter = (modelId: string | undefined) =>
  `WHERE dataset_id = ? AND size >= ?${modelId ? ' AND model_id = ?' : ''}`;
const listParams = (collectionId: string, minSize: number, modelId: string | undefined) =>
  modelId ? [collectionId, minSize, modelId] : [collectionId, minSize];

/** The face clusters' reads: counts, listings, one cluster, its items, an object's cluster. */
export function clusterReads(db: Db): Omit<ClusterStore, 'assignPending'> {
  const previewOf = db.prepare(`SELECT blob_key, media_id, frame_id FROM detected_objects WHERE id = ?`);
  const anyMember = db.prepare(
    `SELECT object_id FROM cluster_members WHERE cluster_id = ? ORDER BY similarity DESC LIMIT 1`,
  );
  const mediaCount = db.prepare(
    `SELECT count(*) FROM media m WHERE m.status = 'active' AND m.is_current = 1
       AND m.id IN (SELECT media_id FROM cluster_members WHERE cluster_id = ?)`,
  );

  const summary = (row: SummaryRow): ClusterSummary => {
    const previewObjectId = row.preview_object_id ?? (anyMember.pluck().get(row.id) as string | undefined) ?? null;
    const preview = previewObjectId
      ? (previewOf.get(previewObjectId) as { blob_key: string | null; media_id: string; frame_id: string } | undefined)
      : undefined;
    return {
      id: row.id,
      modelId: row.model_id,
      size: row.size,
      mediaCount: mediaCount.pluck().get(row.id) as number,
      previewObjectId,
      previewBlobKey: preview?.blob_key ?? null,
      previewMediaId: preview?.media_id ?? null,
      previewFrameId: preview?.frame_id ?? null,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  };

  return {
    async pendingCount(collectionId) {
      return (
        collectionId
          ? db.prepare(`SELECT count(*) FROM cluster_pending WHERE dataset_id = ?`).pluck().get(collectionId)
          : db.prepare(`SELECT count(*) FROM cluster_pending`).pluck().get()
      ) as number;
    },

    async listClusters(collectionId, opts = {}) {
      const limit = opts.limit ?? 50;
      const offset = opts.offset ?? 0;
      const minSize = Math.max(1, opts.minSize ?? 1);
      const rows = db
        .prepare(
          `SELECT ${SUMMARY_COLUMNS} FROM clusters ${listFilter(opts.modelId)} ORDER BY size DESC, id LIMIT ? OFFSET ?`,
        )
        .all(...listParams(collectionId, minSize, opts.modelId), limit, offset) as SummaryRow[];
      return rows.map(summary);
    },

    async countClusters(collectionId, opts = {}) {
      const minSize = Math.max(1, opts.minSize ?? 1);
      return db
        .prepare(`SELECT count(*) FROM clusters ${listFilter(opts.modelId)}`)
        .pluck()
        .get(...listParams(collectionId, minSize, opts.modelId)) as number;
    },

    async getCluster(id) {
      const row = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM clusters WHERE id = ? AND size > 0`).get(id) as
        SummaryRow | undefined;
      return row ? { ...summary(row), collectionId: row.dataset_id } : null;
    },

    async mediaIdsInCluster(clusterId) {
      return db
        .prepare(`SELECT DISTINCT media_id FROM cluster_members WHERE cluster_id = ? ORDER BY media_id`)
        .pluck()
        .all(clusterId) as string[];
    },

    async clusterOfObject(objectId) {
      return (
        (db.prepare(`SELECT cluster_id FROM cluster_members WHERE object_id = ? LIMIT 1`).pluck().get(objectId) as
          string | undefined) ?? null
      );
    },
  };
}
