/**
 * Rebuilding a model's index from object_embeddings: a new generation beside
 * the live one (kept in step by the writes meanwhile), filled in batches that
 * leave the event loop turns between them, swapped in at the end. It
 * recomputes the centre, trains coarse lists for the big collections and
 * reclaims the holes deletes left in vec0.
 */
import { setImmediate as turn } from 'node:timers/promises';
import { listsFor, residual, sampleFor, trainLists } from '../ivf.js';
import { normalize, vectorFromBytes } from '../math.js';
import { SIMILARITY_MODELS, type RebuildOptions, type SimilarityModel, type VectorRow } from '../types.js';
import { createGeneration, dropGeneration, generationsOf, loadGenerations, type TrainedLists } from './registry.js';
import { now, type Generation, type VectorIndexState } from './state.js';
import { insertRow, RowCountDeltas } from './write.js';

/** Rows of object_embeddings (in object id order: random ids, so a random sample) whose mean becomes the centre at a rebuild. */
const CENTER_SAMPLE = 20_000;

/** What a new generation starts from: its dims, centre and trained lists. */
interface RebuildPlan {
  dims: number;
  center: Float32Array;
  lists: TrainedLists[];
}

/** The centre (the model's mean) of a sample of its stored vectors; null when the model has none. */
function centerOf(state: VectorIndexState, modelId: string): { dims: number; center: Float32Array } | null {
  const blobs = state.sql.centerSample.all(modelId, CENTER_SAMPLE) as Buffer[];
  if (blobs.length === 0) return null;
  const dims = blobs[0].byteLength >> 2;
  const mean = new Float64Array(dims);
  let n = 0;
  for (const blob of blobs) {
    if (blob.byteLength !== dims * 4) continue;
    const v = normalize(vectorFromBytes(blob));
    for (let i = 0; i < dims; i++) mean[i] += v[i];
    n++;
  }
  return { dims, center: Float32Array.from(mean, (x) => x / n) };
}

/** The centre and, for each collection past ivfMinRows, its trained lists; null when the model has no vectors. */
async function planRebuild(
  state: VectorIndexState,
  modelId: string,
  signal?: AbortSignal,
): Promise<RebuildPlan | null> {
  const centered = centerOf(state, modelId);
  if (!centered) return null;
  const { dims, center } = centered;
  const lists: TrainedLists[] = [];
  for (const partition of state.sql.partitionCounts.all(modelId) as Array<{ ds: string; sm: string; n: number }>) {
    if (partition.n < state.tuning.ivfMinRows || !SIMILARITY_MODELS.includes(partition.sm as SimilarityModel)) continue;
    const count = state.tuning.ivfLists || listsFor(partition.n);
    const sample = (state.sql.partitionSample.all(modelId, partition.sm, partition.ds, sampleFor(count)) as Buffer[])
      .filter((blob) => blob.byteLength === dims * 4)
      .map((blob) => residual(normalize(vectorFromBytes(blob)), center));
    if (sample.length < count) continue;
    if (signal?.aborted) throw signal.reason ?? new Error('rebuild aborted');
    lists.push({
      ds: partition.ds,
      sm: partition.sm,
      count,
      centroids: await trainLists(sample, count),
      trainedRows: partition.n,
    });
  }
  return { dims, center, lists };
}

/** Drops a rebuild already under way and creates the building generation (none, and every generation dropped, without vectors). */
function startRebuild(state: VectorIndexState, modelId: string, plan: RebuildPlan | null): Generation | null {
  for (const gen of generationsOf(state, modelId)) if (gen.state === 'building') dropGeneration(state, gen);
  if (!plan) {
    for (const gen of generationsOf(state, modelId)) dropGeneration(state, gen);
    return null;
  }
  return createGeneration(state, modelId, plan.dims, plan.center, 'building', plan.lists);
}

/** Copies the next `size` source rows after object id `after` into the building generation. */
function copyBatch(state: VectorIndexState, gen: Generation, after: string, size: number): { n: number; last: string } {
  const rows = state.sql.sourceBatch.all(gen.modelId, after, size) as Array<
    Omit<VectorRow, 'vector' | 'modelId'> & { vector: Buffer }
  >;
  const deltas = new RowCountDeltas();
  const scratch = new Uint8Array(gen.dims >> 3);
  for (const row of rows) {
    if (row.vector.byteLength !== gen.dims * 4 || !SIMILARITY_MODELS.includes(row.similarityModel)) continue;
    if (gen.sql.itemByObject.get(row.objectId)) continue; // written meanwhile by upsert: newer
    insertRow(gen, row, normalize(vectorFromBytes(row.vector)), deltas, scratch);
  }
  deltas.flush(state);
  return { n: rows.length, last: rows.length ? rows[rows.length - 1].objectId : after };
}

/** Swaps the built generation in: the others of its model go. */
function finishRebuild(state: VectorIndexState, gen: Generation): void {
  for (const old of generationsOf(state, gen.modelId)) if (old.id !== gen.id) dropGeneration(state, old);
  state.db
    .prepare(`UPDATE vector_indexes SET state = 'live', built_at = ?, deleted_rows = 0 WHERE id = ?`)
    .run(now(), gen.id);
  state.dirty = true;
}

/** VectorIndex.rebuild: each step in its own transaction; a failed or aborted rebuild drops what it built. */
export async function rebuild(
  state: VectorIndexState,
  modelId: string,
  options: RebuildOptions = {},
): Promise<{ rows: number }> {
  const { db } = state;
  const size = options.batchSize ?? 5_000;
  const plan = await planRebuild(state, modelId, options.signal);
  const gen = db.transaction(() => startRebuild(state, modelId, plan))();
  if (!gen) return { rows: 0 };
  let after = '';
  let done = 0;
  try {
    for (;;) {
      if (options.signal?.aborted) throw options.signal.reason ?? new Error('rebuild aborted');
      loadGenerations(state);
      if (!state.generations.has(gen.id)) throw new Error(`vector index: the rebuild of ${modelId} was superseded`);
      const batch = db.transaction(() => copyBatch(state, gen, after, size))();
      done += batch.n;
      after = batch.last;
      options.onProgress?.(done);
      if (batch.n < size) break;
      await turn();
    }
  } catch (err) {
    loadGenerations(state);
    if (db.open && state.generations.has(gen.id)) db.transaction(() => dropGeneration(state, gen))();
    throw err;
  }
  db.transaction(() => finishRebuild(state, gen))();
  const rows = db
    .prepare(`SELECT coalesce(sum(rows), 0) FROM vector_index_partitions WHERE index_id = ?`)
    .pluck()
    .get(gen.id) as number;
  return { rows };
}
