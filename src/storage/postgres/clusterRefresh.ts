/**
 * Face clusters that lost faces (marked dirty by migration 040's triggers) recomputed from their remaining
 * members, or dropped when none are left; and the per-group lock every cluster write takes first.
 */
import type { AssignResult } from '../../index/faces/types.js';
import { vectorFromBlob, vectorToBlob } from '../../index/faces/vectorBlob.js';
import { summarise } from '../../index/faces/vectorMath.js';
import type { PgRunner } from '../../platform/pgDb.js';

/** One (collection, model): its clusters are built from its faces alone. */
export type Group = { dataset_id: string; model_id: string };

/** A key of our own, the seed of the group lock's hash. */
const GROUP_LOCK_SEED = 0x6c756d63;

/**
 * Takes the group's transaction advisory lock (waiting for a holder to commit): one writer of a group's
 * clusters at a time, across processes. The schema is part of the key, so tests' schemas never share one.
 */
export async function lockGroup(tx: PgRunner, schema: string, group: Group): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, $2))`, [
    `${schema}/${group.dataset_id}/${group.model_id}`,
    GROUP_LOCK_SEED,
  ]);
}

/** Recomputes the group's dirty clusters (the caller holds the group's lock), counting them in `result`. */
export async function refreshDirty(tx: PgRunner, group: Group, result: AssignResult): Promise<void> {
  const dirty = await tx.many<{ id: string; dims: number }>(
    `SELECT id, dims FROM clusters WHERE dataset_id = $1 AND model_id = $2 AND dirty ORDER BY id FOR UPDATE`,
    [group.dataset_id, group.model_id],
  );
  if (dirty.length === 0) return;
  const members = await tx.many<{ cluster_id: string; object_id: string; vector: Buffer }>(
    `SELECT cm.cluster_id, cm.object_id, e.vector FROM cluster_members cm
       JOIN object_embeddings e ON e.object_id = cm.object_id AND e.model_id = cm.model_id
      WHERE cm.cluster_id = ANY ($1)`,
    [dirty.map((c) => c.id)],
  );
  const byCluster = new Map<string, Array<{ objectId: string; vector: Float32Array }>>();
  for (const m of members) {
    let list = byCluster.get(m.cluster_id);
    if (!list) byCluster.set(m.cluster_id, (list = []));
    list.push({ objectId: m.object_id, vector: vectorFromBlob(m.vector) });
  }
  const at = new Date().toISOString();
  const empty: string[] = [];
  for (const c of dirty) {
    const list = byCluster.get(c.id);
    if (!list) {
      empty.push(c.id);
      continue;
    }
    const s = summarise(list, c.dims);
    await tx.query(
      `UPDATE clusters SET centroid = $1, vector_sum = $2, size = $3, preview_object_id = $4, preview_similarity = $5,
         dirty = false, updated_at = $6 WHERE id = $7`,
      [vectorToBlob(s.centroid), vectorToBlob(s.sum), s.size, s.previewObjectId, s.previewSimilarity, at, c.id],
    );
    result.refreshed++;
  }
  if (empty.length) {
    // None with a vector left: drop any stragglers too.
    await tx.query(`DELETE FROM cluster_members WHERE cluster_id = ANY ($1)`, [empty]);
    await tx.query(`DELETE FROM clusters WHERE id = ANY ($1)`, [empty]);
    result.dropped += empty.length;
  }
}
