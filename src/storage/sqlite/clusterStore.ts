/**
 * Face clusters in SQLite (tables and triggers: migrations/006_clusters.sql;
 * the algorithm: src/index/faces/clusterer.ts).
 *
 * assignPending works in batches, each one IMMEDIATE write transaction: it
 * takes the oldest pending faces of one (collection, model), loads that
 * group's centroids, clusters the faces in memory, writes memberships as it
 * goes (and moves members on a merge), then writes the clusters that changed
 * and deletes the pending rows, all before COMMIT. Two runs at once (two
 * runners, two processes) therefore serialise on SQLite's write lock and the
 * second sees only what the first left pending: no face is clustered twice.
 * The event loop gets a turn between batches.
 */
import { OnlineClusterer } from '../../index/faces/clusterer.js';
import { faceClusterThreshold } from '../../index/faces/thresholds.js';
import type { AssignOptions, AssignResult, ClusterStore, ClusterSummary } from '../../index/faces/types.js';
import { vectorFromBlob, vectorToBlob } from '../../index/faces/vectorBlob.js';
import { summarise, unit } from '../../index/faces/vectorMath.js';
import type { Db } from './database.js';

const now = () => new Date().toISOString();

/**
 * The browse filter for `clusterId` (one parameter: the cluster id). The
 * cluster_members_by_cluster index covers the subquery. A cluster of another
 * collection matches nothing because browse also pins m.dataset_id.
 */
export const CLUSTER_BROWSE_CLAUSE = `m.id IN (SELECT media_id FROM cluster_members WHERE cluster_id = ?)`;

const DEFAULT_BATCH = 256;
const REFRESH_BATCH = 64;
/**
 * Face × cluster comparisons per transaction, to bound how long one holds the
 * write lock (about 50–100 ms on this 2-core machine): 256 faces up to ~800
 * clusters, then fewer, down to MIN_BATCH.
 */
const WORK_PER_BATCH = 200_000;
const MIN_BATCH = 8;

interface ClusterRow {
  id: string;
  dataset_id: string;
  model_id: string;
  dims: number;
  vector_sum: Buffer;
  size: number;
  preview_object_id: string | null;
  preview_similarity: number;
}

interface PendingRow {
  seq: number;
  object_id: string;
  media_id: string | null;
  vector: Buffer | null;
  status: string | null;
  member: string | null;
}

interface SummaryRow {
  id: string;
  dataset_id: string;
  model_id: string;
  size: number;
  preview_object_id: string | null;
  created_at: string;
  updated_at: string;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export function sqliteClusterStore(db: Db): ClusterStore {
  const firstGroupIn = db.prepare(
    `SELECT dataset_id, model_id FROM cluster_pending WHERE dataset_id = ? ORDER BY dataset_id, model_id, seq LIMIT 1`,
  );
  const firstGroupAny = db.prepare(`SELECT dataset_id, model_id FROM cluster_pending ORDER BY seq LIMIT 1`);
  const pendingBatch = db.prepare(
    `SELECT p.seq, p.object_id, e.media_id, e.vector, o.status, cm.cluster_id AS member
       FROM cluster_pending p
       LEFT JOIN object_embeddings e ON e.object_id = p.object_id AND e.model_id = p.model_id
       LEFT JOIN detected_objects o ON o.id = p.object_id
       LEFT JOIN cluster_members cm ON cm.object_id = p.object_id AND cm.model_id = p.model_id
      WHERE p.dataset_id = ? AND p.model_id = ?
      ORDER BY p.seq LIMIT ?`,
  );
  const deletePending = db.prepare(`DELETE FROM cluster_pending WHERE seq = ?`);
  const groupClusters = db.prepare(
    `SELECT id, dataset_id, model_id, dims, vector_sum, size, preview_object_id, preview_similarity FROM clusters WHERE dataset_id = ? AND model_id = ?`,
  );
  const dirtyInGroup = db.prepare(`SELECT id FROM clusters WHERE dataset_id = ? AND dirty = 1 AND model_id = ?`);
  const dirtyIn = db.prepare(`SELECT id FROM clusters WHERE dataset_id = ? AND dirty = 1 LIMIT ?`);
  const dirtyAny = db.prepare(`SELECT id FROM clusters WHERE dirty = 1 LIMIT ?`);
  const clusterDims = db.prepare(`SELECT dims FROM clusters WHERE id = ?`);
  const memberVectors = db.prepare(
    `SELECT cm.object_id, e.vector FROM cluster_members cm
       JOIN object_embeddings e ON e.object_id = cm.object_id AND e.model_id = cm.model_id
      WHERE cm.cluster_id = ?`,
  );
  const insertMember = db.prepare(
    `INSERT INTO cluster_members (object_id, model_id, cluster_id, media_id, similarity) VALUES (?, ?, ?, ?, ?)`,
  );
  const moveMembers = db.prepare(`UPDATE cluster_members SET cluster_id = ? WHERE cluster_id = ?`);
  const dropMembers = db.prepare(`DELETE FROM cluster_members WHERE cluster_id = ?`);
  const upsertCluster = db.prepare(
    `INSERT INTO clusters (id, dataset_id, model_id, similarity_model, dims, centroid, vector_sum, size, preview_object_id, preview_similarity, dirty, created_at, updated_at)
     VALUES (@id, @collectionId, @modelId, 'faces', @dims, @centroid, @sum, @size, @preview, @previewSim, 0, @at, @at)
     ON CONFLICT (id) DO UPDATE SET centroid = excluded.centroid, vector_sum = excluded.vector_sum, size = excluded.size,
       preview_object_id = excluded.preview_object_id, preview_similarity = excluded.preview_similarity, dirty = 0, updated_at = excluded.updated_at`,
  );
  const deleteCluster = db.prepare(`DELETE FROM clusters WHERE id = ?`);
  const previewOf = db.prepare(`SELECT blob_key, media_id, frame_id FROM detected_objects WHERE id = ?`);
  const anyMember = db.prepare(
    `SELECT object_id FROM cluster_members WHERE cluster_id = ? ORDER BY similarity DESC LIMIT 1`,
  );
  const mediaCount = db.prepare(
    `SELECT count(*) FROM media m WHERE m.status = 'active' AND m.is_current = 1
       AND m.id IN (SELECT media_id FROM cluster_members WHERE cluster_id = ?)`,
  );

  /** Recomputes a dirty cluster from its remaining members (or drops it when none are left). */
  const refreshOne = (id: string): 'refreshed' | 'dropped' | 'gone' => {
    const dims = clusterDims.pluck().get(id) as number | undefined;
    if (dims === undefined) return 'gone';
    const members = (memberVectors.all(id) as Array<{ object_id: string; vector: Buffer }>).map((r) => ({
      objectId: r.object_id,
      vector: vectorFromBlob(r.vector),
    }));
    if (members.length === 0) {
      dropMembers.run(id); // none with a vector left; drop any stragglers too
      deleteCluster.run(id);
      return 'dropped';
    }
    const s = summarise(members, dims);
    db.prepare(
      `UPDATE clusters SET centroid = ?, vector_sum = ?, size = ?, preview_object_id = ?, preview_similarity = ?, dirty = 0, updated_at = ? WHERE id = ?`,
    ).run(vectorToBlob(s.centroid), vectorToBlob(s.sum), s.size, s.previewObjectId, s.previewSimilarity, now(), id);
    return 'refreshed';
  };

  /** One transaction of dirty clusters outside any pending batch; how many were handled. */
  const refreshBatch = db.transaction((collectionId: string | null, result: AssignResult): number => {
    const ids = (
      collectionId ? dirtyIn.pluck().all(collectionId, REFRESH_BATCH) : dirtyAny.pluck().all(REFRESH_BATCH)
    ) as string[];
    for (const id of ids) {
      const r = refreshOne(id);
      if (r === 'refreshed') result.refreshed++;
      else if (r === 'dropped') result.dropped++;
    }
    return ids.length;
  });

  /** One batch of one (collection, model); how many pending rows it consumed. */
  const assignBatch = db.transaction(
    (
      group: { dataset_id: string; model_id: string },
      limit: number,
      opts: AssignOptions,
      result: AssignResult,
    ): number => {
      const { dataset_id: collectionId, model_id: modelId } = group;
      for (const id of dirtyInGroup.pluck().all(collectionId, modelId) as string[]) {
        const r = refreshOne(id);
        if (r === 'refreshed') result.refreshed++;
        else if (r === 'dropped') result.dropped++;
      }
      const loaded = groupClusters.all(collectionId, modelId) as ClusterRow[];
      // Each face costs one dot product per cluster: fewer faces per transaction when there are many clusters.
      const take = Math.max(MIN_BATCH, Math.min(limit, Math.floor(WORK_PER_BATCH / Math.max(1, loaded.length))));
      const rows = pendingBatch.all(collectionId, modelId, Math.min(limit, take)) as PendingRow[];
      if (rows.length === 0) return 0;
      const firstVector = rows.find((r) => r.vector)?.vector;
      const dims = loaded[0]?.dims ?? (firstVector ? firstVector.byteLength / 4 : 0);
      const threshold = faceClusterThreshold(modelId, opts.thresholds, opts.declaredThresholds);
      const clusterer = new OnlineClusterer(Math.max(1, dims), {
        threshold,
        mergeThreshold: threshold + (opts.mergeMargin ?? 0),
      });
      for (const c of loaded) {
        clusterer.load({
          id: c.id,
          sum: vectorFromBlob(c.vector_sum),
          size: c.size,
          previewObjectId: c.preview_object_id,
          previewSimilarity: c.preview_similarity,
        });
      }
      for (const r of rows) {
        deletePending.run(r.seq);
        if (
          !r.vector ||
          !r.media_id ||
          r.status !== 'active' ||
          r.member !== null ||
          dims === 0 ||
          r.vector.byteLength !== dims * 4
        ) {
          result.skipped++;
          continue;
        }
        // Stored vectors are unit length; re-normalising guards against a writer that forgot.
        const v = unit(vectorFromBlob(r.vector));
        const a = clusterer.add(r.object_id, v);
        if (a.created) result.created++;
        for (const m of a.merges) {
          moveMembers.run(m.into, m.from);
          result.merged++;
        }
        insertMember.run(r.object_id, modelId, a.clusterId, r.media_id, a.similarity);
        result.assigned++;
      }
      const at = now();
      const { changed, removed } = clusterer.drainChanges();
      for (const id of removed) deleteCluster.run(id);
      for (const c of changed) {
        upsertCluster.run({
          id: c.id,
          collectionId,
          modelId,
          dims,
          centroid: vectorToBlob(clusterer.centroid(c.id)!),
          sum: vectorToBlob(c.sum),
          size: c.size,
          preview: c.previewObjectId,
          previewSim: c.previewSimilarity,
          at,
        });
      }
      return rows.length;
    },
  );

  const summary = (r: SummaryRow): ClusterSummary => {
    const previewObjectId = r.preview_object_id ?? (anyMember.pluck().get(r.id) as string | undefined) ?? null;
    const p = previewObjectId
      ? (previewOf.get(previewObjectId) as { blob_key: string | null; media_id: string; frame_id: string } | undefined)
      : undefined;
    return {
      id: r.id,
      modelId: r.model_id,
      size: r.size,
      mediaCount: mediaCount.pluck().get(r.id) as number,
      previewObjectId,
      previewBlobKey: p?.blob_key ?? null,
      previewMediaId: p?.media_id ?? null,
      previewFrameId: p?.frame_id ?? null,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    };
  };

  const SUMMARY_COLUMNS = `id, dataset_id, model_id, size, preview_object_id, created_at, updated_at`;

  return {
    async assignPending(collectionId, limit, opts = {}) {
      const result: AssignResult = {
        assigned: 0,
        created: 0,
        merged: 0,
        skipped: 0,
        refreshed: 0,
        dropped: 0,
        more: false,
      };
      const batch = Math.max(1, opts.batchSize ?? DEFAULT_BATCH);
      // Clusters that lost faces, wherever no pending face will bring the group up to date anyway.
      while (refreshBatch.immediate(collectionId, result) === REFRESH_BATCH) {
        if (opts.signal?.aborted) return { ...result, more: true };
        await tick();
      }
      let done = 0;
      while (done < limit) {
        if (opts.signal?.aborted) break;
        const group = (collectionId ? firstGroupIn.get(collectionId) : firstGroupAny.get()) as
          { dataset_id: string; model_id: string } | undefined;
        if (!group) return result;
        done += assignBatch.immediate(group, Math.min(batch, limit - done), opts, result);
        await tick();
      }
      result.more = (collectionId ? firstGroupIn.get(collectionId) : firstGroupAny.get()) !== undefined;
      return result;
    },

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
      const rows = (
        opts.modelId
          ? db
              .prepare(
                `SELECT ${SUMMARY_COLUMNS} FROM clusters WHERE dataset_id = ? AND size >= ? AND model_id = ? ORDER BY size DESC, id LIMIT ? OFFSET ?`,
              )
              .all(collectionId, minSize, opts.modelId, limit, offset)
          : db
              .prepare(
                `SELECT ${SUMMARY_COLUMNS} FROM clusters WHERE dataset_id = ? AND size >= ? ORDER BY size DESC, id LIMIT ? OFFSET ?`,
              )
              .all(collectionId, minSize, limit, offset)
      ) as SummaryRow[];
      return rows.map(summary);
    },

    async countClusters(collectionId, opts = {}) {
      const minSize = Math.max(1, opts.minSize ?? 1);
      return (
        opts.modelId
          ? db
              .prepare(`SELECT count(*) FROM clusters WHERE dataset_id = ? AND size >= ? AND model_id = ?`)
              .pluck()
              .get(collectionId, minSize, opts.modelId)
          : db
              .prepare(`SELECT count(*) FROM clusters WHERE dataset_id = ? AND size >= ?`)
              .pluck()
              .get(collectionId, minSize)
      ) as number;
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
