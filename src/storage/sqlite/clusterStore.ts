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
 * The event loop gets a turn between batches. The reads are in clusterReads.ts.
 */
import {
  DEFAULT_ASSIGN_BATCH,
  facesPerBatch,
  isUsableFace,
  loadClusterer,
  placeFace,
} from '../../index/faces/assignment.js';
import type { OnlineClusterer } from '../../index/faces/clusterer.js';
import type { AssignOptions, AssignResult, ClusterStore } from '../../index/faces/types.js';
import { vectorFromBlob, vectorToBlob } from '../../index/faces/vectorBlob.js';
import { summarise, unit } from '../../index/faces/vectorMath.js';
import { clusterEdits } from './clusterEdits.js';
import { clusterReads } from './clusterReads.js';
import type { Db } from './database.js';

const now = () => new Date().toISOString();

/**
 * The browse filter for `clusterId` (one parameter: the cluster id). The
 * cluster_members_by_cluster index covers the subquery. A cluster of another
 * collection matches nothing because browse also pins m.dataset_id.
 */
export const CLUSTER_BROWSE_CLAUSE = `m.id IN (SELECT media_id FROM cluster_members WHERE cluster_id = ?)`;

const REFRESH_BATCH = 64;

/** A clusters row as the assignment loads it. */
interface ClusterRow {
  id: string;
  dataset_id: string;
  model_id: string;
  dims: number;
  vector_sum: Buffer;
  size: number;
  preview_object_id: string | null;
  preview_similarity: number;
  pinned: number | boolean;
}

/** A pending face with what it needs: its embedding, whether it is active, any cluster it is already in. */
interface PendingRow {
  seq: number;
  object_id: string;
  media_id: string | null;
  vector: Buffer | null;
  status: string | null;
  member: string | null;
  /** The cluster a person placed the face in (cluster_pins), if any. */
  pin: string | null;
}

/** One (collection, model) with pending faces. */
type Group = { dataset_id: string; model_id: string };

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export function sqliteClusterStore(db: Db): ClusterStore {
  const reads = clusterReads(db);
  return { ...clusterAssignment(db, clusterStatements(db)), ...reads, ...clusterEdits(db, reads.getCluster) };
}

type Statements = ReturnType<typeof clusterStatements>;

/** The assignment's statements, prepared once per store. */
function clusterStatements(db: Db) {
  return {
    firstGroupIn: db.prepare(
      `SELECT dataset_id, model_id FROM cluster_pending WHERE dataset_id = ? ORDER BY dataset_id, model_id, seq LIMIT 1`,
    ),
    firstGroupAny: db.prepare(`SELECT dataset_id, model_id FROM cluster_pending ORDER BY seq LIMIT 1`),
    pendingBatch: db.prepare(
      `SELECT p.seq, p.object_id, e.media_id, e.vector, o.status, cm.cluster_id AS member, pin.cluster_id AS pin
         FROM cluster_pending p
         LEFT JOIN object_embeddings e ON e.object_id = p.object_id AND e.model_id = p.model_id
         LEFT JOIN detected_objects o ON o.id = p.object_id
         LEFT JOIN cluster_members cm ON cm.object_id = p.object_id AND cm.model_id = p.model_id
         LEFT JOIN cluster_pins pin ON pin.object_id = p.object_id AND pin.model_id = p.model_id
        WHERE p.dataset_id = ? AND p.model_id = ?
        ORDER BY p.seq LIMIT ?`,
    ),
    deletePending: db.prepare(`DELETE FROM cluster_pending WHERE seq = ?`),
    groupClusters: db.prepare(
      `SELECT id, dataset_id, model_id, dims, vector_sum, size, preview_object_id, preview_similarity, pinned
       FROM clusters WHERE dataset_id = ? AND model_id = ?`,
    ),
    dirtyInGroup: db.prepare(`SELECT id FROM clusters WHERE dataset_id = ? AND dirty = 1 AND model_id = ?`),
    dirtyIn: db.prepare(`SELECT id FROM clusters WHERE dataset_id = ? AND dirty = 1 LIMIT ?`),
    dirtyAny: db.prepare(`SELECT id FROM clusters WHERE dirty = 1 LIMIT ?`),
    clusterDims: db.prepare(`SELECT dims FROM clusters WHERE id = ?`),
    memberVectors: db.prepare(
      `SELECT cm.object_id, e.vector FROM cluster_members cm
         JOIN object_embeddings e ON e.object_id = cm.object_id AND e.model_id = cm.model_id
        WHERE cm.cluster_id = ?`,
    ),
    insertMember: db.prepare(
      `INSERT INTO cluster_members (object_id, model_id, cluster_id, media_id, similarity) VALUES (?, ?, ?, ?, ?)`,
    ),
    moveMembers: db.prepare(`UPDATE cluster_members SET cluster_id = ? WHERE cluster_id = ?`),
    dropMembers: db.prepare(`DELETE FROM cluster_members WHERE cluster_id = ?`),
    upsertCluster: db.prepare(
      `INSERT INTO clusters (id, dataset_id, model_id, similarity_model, dims, centroid, vector_sum, size,
         preview_object_id, preview_similarity, dirty, created_at, updated_at)
       VALUES (@id, @collectionId, @modelId, 'faces', @dims, @centroid, @sum, @size, @preview, @previewSim, 0, @at, @at)
       ON CONFLICT (id) DO UPDATE SET centroid = excluded.centroid, vector_sum = excluded.vector_sum, size = excluded.size,
         preview_object_id = excluded.preview_object_id, preview_similarity = excluded.preview_similarity, dirty = 0,
         updated_at = excluded.updated_at`,
    ),
    deleteCluster: db.prepare(`DELETE FROM clusters WHERE id = ?`),
  };
}

/** Recomputes a dirty cluster from its remaining members (or drops it when none are left). */
function refreshOne(db: Db, st: Statements, id: string): 'refreshed' | 'dropped' | 'gone' {
  const dims = st.clusterDims.pluck().get(id) as number | undefined;
  if (dims === undefined) return 'gone';
  const members = (st.memberVectors.all(id) as Array<{ object_id: string; vector: Buffer }>).map((row) => ({
    objectId: row.object_id,
    vector: vectorFromBlob(row.vector),
  }));
  if (members.length === 0) {
    st.dropMembers.run(id); // none with a vector left; drop any stragglers too
    st.deleteCluster.run(id);
    return 'dropped';
  }
  const s = summarise(members, dims);
  db.prepare(
    `UPDATE clusters SET centroid = ?, vector_sum = ?, size = ?, preview_object_id = ?, preview_similarity = ?,
       dirty = 0, updated_at = ? WHERE id = ?`,
  ).run(vectorToBlob(s.centroid), vectorToBlob(s.sum), s.size, s.previewObjectId, s.previewSimilarity, now(), id);
  return 'refreshed';
}

/** Refreshes these dirty clusters, counting what became of them in `result`. */
function refreshAll(db: Db, st: Statements, ids: string[], result: AssignResult): void {
  for (const id of ids) {
    const outcome = refreshOne(db, st, id);
    if (outcome === 'refreshed') result.refreshed++;
    else if (outcome === 'dropped') result.dropped++;
  }
}

/** Takes the pending rows (each deleted as it goes): members written, moved on a merge; unusable rows skipped. */
function assignRows(
  st: Statements,
  clusterer: OnlineClusterer,
  rows: PendingRow[],
  modelId: string,
  dims: number,
  result: AssignResult,
): void {
  for (const row of rows) {
    st.deletePending.run(row.seq);
    if (!isUsableFace(row, dims)) {
      result.skipped++;
      continue;
    }
    // Stored vectors are unit length; re-normalising guards against a writer that forgot.
    const vector = unit(vectorFromBlob(row.vector!));
    const assigned = placeFace(clusterer, row.object_id, vector, row.pin);
    if (assigned.created) result.created++;
    for (const merge of assigned.merges) {
      st.moveMembers.run(merge.into, merge.from);
      result.merged++;
    }
    st.insertMember.run(row.object_id, modelId, assigned.clusterId, row.media_id!, assigned.similarity);
    result.assigned++;
  }
}

/** Writes the clusters the clusterer changed and deletes those it merged away. */
function writeClusters(st: Statements, clusterer: OnlineClusterer, group: Group, dims: number): void {
  const at = now();
  const { changed, removed } = clusterer.drainChanges();
  for (const id of removed) st.deleteCluster.run(id);
  for (const cluster of changed) {
    st.upsertCluster.run({
      id: cluster.id,
      collectionId: group.dataset_id,
      modelId: group.model_id,
      dims,
      centroid: vectorToBlob(clusterer.centroid(cluster.id)!),
      sum: vectorToBlob(cluster.sum),
      size: cluster.size,
      preview: cluster.previewObjectId,
      previewSim: cluster.previewSimilarity,
      at,
    });
  }
}

/** assignPending: the batches of pending faces, each one transaction (see the top of this file). */
function clusterAssignment(db: Db, st: Statements): Pick<ClusterStore, 'assignPending'> {
  /** One transaction of dirty clusters outside any pending batch; how many were handled. */
  const refreshBatch = db.transaction((collectionId: string | null, result: AssignResult): number => {
    const ids = (
      collectionId ? st.dirtyIn.pluck().all(collectionId, REFRESH_BATCH) : st.dirtyAny.pluck().all(REFRESH_BATCH)
    ) as string[];
    refreshAll(db, st, ids, result);
    return ids.length;
  });

  /** One batch of one (collection, model); how many pending rows it consumed. */
  const assignBatch = db.transaction((group: Group, limit: number, opts: AssignOptions, result: AssignResult) => {
    const { dataset_id: collectionId, model_id: modelId } = group;
    refreshAll(db, st, st.dirtyInGroup.pluck().all(collectionId, modelId) as string[], result);
    const loaded = st.groupClusters.all(collectionId, modelId) as ClusterRow[];
    // Each face costs one dot product per cluster: fewer faces per transaction when there are many clusters.
    const take = facesPerBatch(limit, loaded.length);
    const rows = st.pendingBatch.all(collectionId, modelId, Math.min(limit, take)) as PendingRow[];
    if (rows.length === 0) return 0;
    const firstVector = rows.find((row) => row.vector)?.vector;
    const dims = loaded[0]?.dims ?? (firstVector ? firstVector.byteLength / 4 : 0);
    const clusterer = loadClusterer(modelId, dims, loaded, opts);
    assignRows(st, clusterer, rows, modelId, dims, result);
    writeClusters(st, clusterer, group, dims);
    return rows.length;
  });

  const firstGroup = (collectionId: string | null) =>
    (collectionId ? st.firstGroupIn.get(collectionId) : st.firstGroupAny.get()) as Group | undefined;

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
      const batch = Math.max(1, opts.batchSize ?? DEFAULT_ASSIGN_BATCH);
      // Clusters that lost faces, wherever no pending face will bring the group up to date anyway.
      while (refreshBatch.immediate(collectionId, result) === REFRESH_BATCH) {
        if (opts.signal?.aborted) return { ...result, more: true };
        await tick();
      }
      let done = 0;
      while (done < limit) {
        if (opts.signal?.aborted) break;
        const group = firstGroup(collectionId);
        if (!group) return result;
        done += assignBatch.immediate(group, Math.min(batch, limit - done), opts, result);
        await tick();
      }
      result.more = firstGroup(collectionId) !== undefined;
      return result;
    },
  };
}
