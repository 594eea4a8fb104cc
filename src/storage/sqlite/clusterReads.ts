import type { ClusterListOptions, ClusterStore, ClusterSummary } from '../../index/faces/types.js';
import { vectorFromBlob } from '../../index/faces/vectorBlob.js';
import type { Db } from './database.js';

/** The edits (clusterEdits.ts). */
export type ClusterEditNames = 'updateCluster' | 'mergeClusters' | 'moveFaces';

/** A clusters row as the listings read it. */
interface SummaryRow {
  id: string;
  dataset_id: string;
  model_id: string;
  size: number;
  preview_object_id: string | null;
  name: string | null;
  hidden: number;
  pinned: number;
  cover_object_id: string | null;
  created_at: string;
  updated_at: string;
}

const SUMMARY_COLUMNS = `id, dataset_id, model_id, size, preview_object_id, name, hidden, pinned, cover_object_id,
  created_at, updated_at`;

/** The listings' filter: a collection's clusters of at least a size, of one model when one is given, visible unless asked. */
const listFilter = (opts: ClusterListOptions) =>
  `WHERE dataset_id = ?${opts.includeHidden ? '' : ' AND hidden = 0'} AND size >= ?${opts.modelId ? ' AND model_id = ?' : ''}`;
const listParams = (collectionId: string, opts: ClusterListOptions) => {
  const minSize = Math.max(1, opts.minSize ?? 1);
  return opts.modelId ? [collectionId, minSize, opts.modelId] : [collectionId, minSize];
};

/** The face clusters' reads: counts, listings, one cluster, its items, an object's cluster. */
export function clusterReads(db: Db): Omit<ClusterStore, 'assignPending' | ClusterEditNames> {
  return { ...summaryReads(db), ...peopleReads(db) };
}

/** Counts, listings, one cluster, its items, an object's cluster. */
function summaryReads(
  db: Db,
): Omit<ClusterStore, 'assignPending' | ClusterEditNames | 'clusterFaces' | 'clusterCentroids'> {
  const previewOf = db.prepare(`SELECT blob_key, media_id, frame_id FROM detected_objects WHERE id = ?`);
  const anyMember = db.prepare(
    `SELECT object_id FROM cluster_members WHERE cluster_id = ? ORDER BY similarity DESC LIMIT 1`,
  );
  const isMember = db.prepare(`SELECT 1 FROM cluster_members WHERE object_id = ? AND cluster_id = ?`);
  const mediaCount = db.prepare(
    `SELECT count(*) FROM media m WHERE m.status = 'active' AND m.is_current = 1
       AND m.id IN (SELECT media_id FROM cluster_members WHERE cluster_id = ?)`,
  );

  const summary = (row: SummaryRow): ClusterSummary => {
    const cover = row.cover_object_id && isMember.get(row.cover_object_id, row.id) ? row.cover_object_id : null;
    const previewObjectId =
      cover ?? row.preview_object_id ?? (anyMember.pluck().get(row.id) as string | undefined) ?? null;
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
      name: row.name,
      hidden: row.hidden === 1,
      pinned: row.pinned === 1,
      coverObjectId: cover,
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
      const rows = db
        .prepare(
          `SELECT ${SUMMARY_COLUMNS} FROM clusters ${listFilter(opts)} ORDER BY (name IS NULL), size DESC, id LIMIT ? OFFSET ?`,
        )
        .all(...listParams(collectionId, opts), limit, offset) as SummaryRow[];
      return rows.map(summary);
    },

    async countClusters(collectionId, opts = {}) {
      return db
        .prepare(`SELECT count(*) FROM clusters ${listFilter(opts)}`)
        .pluck()
        .get(...listParams(collectionId, opts)) as number;
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

/** What the People screens read besides the listing: a cluster's faces, the centroids for suggestions. */
function peopleReads(db: Db): Pick<ClusterStore, 'clusterFaces' | 'clusterCentroids'> {
  return {
    async clusterFaces(clusterId, page) {
      const rows = db
        .prepare(
          `SELECT cm.object_id, cm.media_id, o.blob_key, pin.cluster_id IS NOT NULL AS manual
             FROM cluster_members cm JOIN detected_objects o ON o.id = cm.object_id
             LEFT JOIN cluster_pins pin ON pin.object_id = cm.object_id AND pin.model_id = cm.model_id
              AND pin.cluster_id = cm.cluster_id
            WHERE cm.cluster_id = ? ORDER BY cm.similarity DESC, cm.object_id LIMIT ? OFFSET ?`,
        )
        .all(clusterId, page.limit, page.offset) as Array<{
        object_id: string;
        media_id: string;
        blob_key: string | null;
        manual: number;
      }>;
      return rows.map((r) => ({
        objectId: r.object_id,
        mediaId: r.media_id,
        blobKey: r.blob_key,
        manual: r.manual === 1,
      }));
    },

    async clusterCentroids(collectionId, limit) {
      const rows = db
        .prepare(
          `SELECT id, model_id, size, name, centroid FROM clusters WHERE dataset_id = ? AND hidden = 0
            ORDER BY size DESC, id LIMIT ?`,
        )
        .all(collectionId, limit) as Array<{
        id: string;
        model_id: string;
        size: number;
        name: string | null;
        centroid: Buffer;
      }>;
      return rows.map((r) => ({
        id: r.id,
        modelId: r.model_id,
        size: r.size,
        name: r.name,
        centroid: vectorFromBlob(r.centroid),
      }));
    },
  };
}
