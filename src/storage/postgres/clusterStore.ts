/**
 * Face clusters on PostgreSQL (tables: migration 001; the triggers that keep them in step with the faces:
 * 040_clusters.sql; the algorithm: src/index/faces/clusterer.ts). SQLite: src/storage/sqlite/clusterStore.ts.
 *
 * assignPending works in batches, each one transaction on one (collection, model): it takes that group's
 * advisory lock (held to COMMIT), locks the oldest pending faces, loads and locks the group's clusters,
 * clusters the faces in memory, writes memberships (moving members on a merge), writes the clusters that
 * changed and deletes the pending rows it took. Two runs at once, in one process or several, therefore take
 * turns on a group and the second sees only what the first left pending: no face is clustered twice, and
 * no two runs start two clusters for one person. Locks are taken in the triggers' order (pending rows, then
 * clusters, then members), so a face deleted meanwhile waits for the batch instead of deadlocking with it.
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
import { unit } from '../../index/faces/vectorMath.js';
import type { PgDb, PgRunner } from '../../platform/pgDb.js';
import { pgClusterEdits } from './clusterEdits.js';
import { pgClusterReads } from './clusterReads.js';
import { lockGroup, refreshDirty, type Group } from './clusterRefresh.js';

/** A clusters row as the assignment loads it. */
interface ClusterRow {
  id: string;
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

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export function pgClusterStore(db: PgDb): ClusterStore {
  const reads = pgClusterReads(db);
  return { ...clusterAssignment(db), ...reads, ...pgClusterEdits(db, reads.getCluster) };
}

/** Clusters the pending rows in memory; the members to insert, the merges to apply. Unusable rows are skipped. */
function assignRows(clusterer: OnlineClusterer, rows: PendingRow[], dims: number, result: AssignResult) {
  const members: Array<{ objectId: string; clusterId: string; mediaId: string; similarity: number }> = [];
  const merges: Array<{ into: string; from: string }> = [];
  for (const row of rows) {
    if (!isUsableFace(row, dims)) {
      result.skipped++;
      continue;
    }
    // Stored vectors are unit length; re-normalising guards against a writer that forgot.
    const assigned = placeFace(clusterer, row.object_id, unit(vectorFromBlob(row.vector!)), row.pin);
    if (assigned.created) result.created++;
    for (const merge of assigned.merges) {
      merges.push(merge);
      result.merged++;
    }
    members.push({
      objectId: row.object_id,
      clusterId: assigned.clusterId,
      mediaId: row.media_id!,
      similarity: assigned.similarity,
    });
    result.assigned++;
  }
  // A face that joined a cluster merged away later in the batch is a member of the one it went into.
  const into = new Map(merges.map((m) => [m.from, m.into]));
  const final = (id: string) => {
    let x = id;
    while (into.has(x)) x = into.get(x)!;
    return x;
  };
  return { members: members.map((m) => ({ ...m, clusterId: final(m.clusterId) })), merges };
}

/** Writes members, merges, changed and removed clusters, and deletes the pending rows taken. */
async function writeBatch(
  tx: PgRunner,
  group: Group,
  dims: number,
  clusterer: OnlineClusterer,
  done: {
    seqs: number[];
    members: ReturnType<typeof assignRows>['members'];
    merges: Array<{ into: string; from: string }>;
  },
): Promise<void> {
  const at = new Date().toISOString();
  await tx.query(`DELETE FROM cluster_pending WHERE seq = ANY ($1)`, [done.seqs]);
  // Stored members of a merged-away cluster follow it (in merge order: a chain ends in the survivor).
  for (const merge of done.merges) {
    await tx.query(`UPDATE cluster_members SET cluster_id = $1 WHERE cluster_id = $2`, [merge.into, merge.from]);
  }
  const { members } = done;
  if (members.length) {
    await tx.query(
      `INSERT INTO cluster_members (object_id, model_id, cluster_id, media_id, similarity)
       SELECT u.object_id, $1, u.cluster_id, u.media_id, u.similarity
         FROM unnest($2::text[], $3::text[], $4::text[], $5::float8[]) AS u(object_id, cluster_id, media_id, similarity)`,
      [
        group.model_id,
        members.map((m) => m.objectId),
        members.map((m) => m.clusterId),
        members.map((m) => m.mediaId),
        members.map((m) => m.similarity),
      ],
    );
  }
  const { changed, removed } = clusterer.drainChanges();
  if (removed.length) await tx.query(`DELETE FROM clusters WHERE id = ANY ($1)`, [removed]);
  if (changed.length === 0) return;
  await tx.query(
    `INSERT INTO clusters (id, dataset_id, model_id, similarity_model, dims, centroid, vector_sum, size,
       preview_object_id, preview_similarity, dirty, created_at, updated_at)
     SELECT u.id, $1, $2, 'faces', $3, u.centroid, u.vector_sum, u.size, u.preview, u.preview_similarity, false, $4, $4
       FROM unnest($5::text[], $6::bytea[], $7::bytea[], $8::int[], $9::text[], $10::float8[])
            AS u(id, centroid, vector_sum, size, preview, preview_similarity)
     ON CONFLICT (id) DO UPDATE SET centroid = excluded.centroid, vector_sum = excluded.vector_sum, size = excluded.size,
       preview_object_id = excluded.preview_object_id, preview_similarity = excluded.preview_similarity, dirty = false,
       updated_at = excluded.updated_at`,
    [
      group.dataset_id,
      group.model_id,
      dims,
      at,
      changed.map((c) => c.id),
      changed.map((c) => vectorToBlob(clusterer.centroid(c.id)!)),
      changed.map((c) => vectorToBlob(c.sum)),
      changed.map((c) => c.size),
      changed.map((c) => c.previewObjectId),
      changed.map((c) => c.previewSimilarity),
    ],
  );
}

/** One batch of one (collection, model), one transaction; how many pending rows it consumed. */
async function assignBatch(db: PgDb, group: Group, limit: number, opts: AssignOptions, result: AssignResult) {
  return db.tx(async (tx) => {
    await lockGroup(tx, db.schema, group);
    const { dataset_id: collectionId, model_id: modelId } = group;
    const count = await tx.one<{ n: number }>(
      `SELECT count(*) AS n FROM clusters WHERE dataset_id = $1 AND model_id = $2`,
      [collectionId, modelId],
    );
    // Each face costs one dot product per cluster: fewer faces per transaction when there are many clusters.
    const take = facesPerBatch(limit, count!.n);
    const rows = await tx.many<PendingRow>(
      `SELECT p.seq, p.object_id, e.media_id, e.vector, o.status, cm.cluster_id AS member, pin.cluster_id AS pin
         FROM cluster_pending p
         LEFT JOIN object_embeddings e ON e.object_id = p.object_id AND e.model_id = p.model_id
         LEFT JOIN detected_objects o ON o.id = p.object_id
         LEFT JOIN cluster_members cm ON cm.object_id = p.object_id AND cm.model_id = p.model_id
         LEFT JOIN cluster_pins pin ON pin.object_id = p.object_id AND pin.model_id = p.model_id
        WHERE p.dataset_id = $1 AND p.model_id = $2
        ORDER BY p.seq LIMIT $3
        FOR UPDATE OF p`,
      [collectionId, modelId, Math.min(limit, take)],
    );
    // The group's clusters, locked in one pass in id order as the triggers lock them (two passes, the dirty
    // ones first, could each wait on the other's rows: a deadlock).
    await tx.query(`SELECT 1 FROM clusters WHERE dataset_id = $1 AND model_id = $2 ORDER BY id FOR UPDATE`, [
      collectionId,
      modelId,
    ]);
    // Clusters that lost faces are brought up to date before new ones join them.
    await refreshDirty(tx, group, result);
    if (rows.length === 0) return 0;
    const loaded = await tx.many<ClusterRow>(
      `SELECT id, dims, vector_sum, size, preview_object_id, preview_similarity, pinned FROM clusters
        WHERE dataset_id = $1 AND model_id = $2`,
      [collectionId, modelId],
    );
    const firstVector = rows.find((row) => row.vector)?.vector;
    const dims = loaded[0]?.dims ?? (firstVector ? firstVector.byteLength / 4 : 0);
    const clusterer = loadClusterer(modelId, dims, loaded, opts);
    const done = assignRows(clusterer, rows, dims, result);
    await writeBatch(tx, group, dims, clusterer, { seqs: rows.map((r) => r.seq), ...done });
    return rows.length;
  });
}

/** assignPending: the batches of pending faces, each one transaction (see the top of this file). */
function clusterAssignment(db: PgDb): Pick<ClusterStore, 'assignPending'> {
  const firstGroup = (collectionId: string | null) =>
    collectionId
      ? db.one<Group>(
          `SELECT dataset_id, model_id FROM cluster_pending WHERE dataset_id = $1 ORDER BY dataset_id, model_id, seq LIMIT 1`,
          [collectionId],
        )
      : db.one<Group>(`SELECT dataset_id, model_id FROM cluster_pending ORDER BY seq LIMIT 1`);
  const firstDirty = (collectionId: string | null) =>
    collectionId
      ? db.one<Group>(`SELECT dataset_id, model_id FROM clusters WHERE dataset_id = $1 AND dirty LIMIT 1`, [
          collectionId,
        ])
      : db.one<Group>(`SELECT dataset_id, model_id FROM clusters WHERE dirty LIMIT 1`);

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
      // Clusters that lost faces, group by group, each under its group's lock.
      for (let group = await firstDirty(collectionId); group; group = await firstDirty(collectionId)) {
        if (opts.signal?.aborted) return { ...result, more: true };
        await db.tx(async (tx) => {
          await lockGroup(tx, db.schema, group!);
          await refreshDirty(tx, group!, result);
        });
        await tick();
      }
      let done = 0;
      while (done < limit) {
        if (opts.signal?.aborted) break;
        const group = await firstGroup(collectionId);
        if (!group) return result;
        done += await assignBatch(db, group, Math.min(batch, limit - done), opts, result);
        await tick();
      }
      result.more = (await firstGroup(collectionId)) !== null;
      return result;
    },
  };
}
