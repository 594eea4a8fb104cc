/**
 * What the SQLite vector index tells about itself: per-generation stats (rows,
 * holes, whether a rebuild is worth it), how far a model covers collections,
 * and the models with embeddings but no index.
 */
import { IVF_RETRAIN_FACTOR } from '../ivf.js';
import type { SimilarityModel, VectorCoverage, VectorIndexStats } from '../types.js';
import { answeringGeneration, listsOf, loadGenerations } from './registry.js';
import type { Generation, VectorIndexState } from './state.js';
import { CHUNK_SIZE } from './tuning.js';

/** A model quantised without its mean is worth a rebuild from this many rows. */
const UNCENTERED_REBUILD_ROWS = 10_000;

/** Rows of collections big enough for lists that have none (or grew past IVF_RETRAIN_FACTOR × the rows they were trained on). */
function unlistedRowsOf(state: VectorIndexState, gen: Generation): number {
  let unlisted = 0;
  const big = state.sql.bigPartitions.all(gen.id, state.tuning.ivfMinRows) as Array<{
    ds: string;
    sm: string;
    rows: number;
  }>;
  for (const partition of big) {
    const lists = listsOf(gen, partition.ds, partition.sm);
    if (!lists || partition.rows > IVF_RETRAIN_FACTOR * lists.trainedRows) unlisted += partition.rows;
  }
  return unlisted;
}

export function statsOf(state: VectorIndexState, gen: Generation): VectorIndexStats {
  const parts = state.sql.generationRows.get(gen.id) as { n: number; rows: number };
  const slots = (gen.sql.chunks.get() as number) * CHUNK_SIZE;
  const lists = gen.listSql ? (gen.listSql.listCount.get() as number) : 0;
  // Each vec0 partition (a collection without lists, or one list) has a partly filled last chunk.
  const listed = gen.listSql ? (gen.listSql.listedGroups.get() as number) : 0;
  const reclaimable = Math.max(0, slots - parts.rows - (parts.n - listed + lists) * CHUNK_SIZE);
  const unlistedRows = unlistedRowsOf(state, gen);
  return {
    modelId: gen.modelId,
    dims: gen.dims,
    sourceDtype: 'float32',
    indexDtype: 'bit',
    rerankDtype: 'int8',
    quantizer: gen.quantizer,
    centered: gen.center !== null,
    state: gen.state,
    rows: parts.rows,
    slots,
    reclaimable,
    needsRebuild:
      reclaimable > Math.max(50_000, parts.rows / 4) ||
      (gen.center === null && parts.rows >= UNCENTERED_REBUILD_ROWS) ||
      unlistedRows > 0,
    cachedRows: state.cache.rows(gen.id),
    lists,
    unlistedRows,
  };
}

/** VectorIndex.stats: every generation (of one model when named). */
export function statsAll(state: VectorIndexState, modelId?: string): VectorIndexStats[] {
  loadGenerations(state);
  return [...state.generations.values()]
    .filter((gen) => modelId === undefined || gen.modelId === modelId)
    .map((gen) => statsOf(state, gen));
}

/** VectorIndex.coverage: the model's indexed rows against the objects that should have one. */
export function coverage(
  state: VectorIndexState,
  modelId: string,
  collectionIds: string[],
  sm?: SimilarityModel,
): VectorCoverage {
  const { db } = state;
  const json = JSON.stringify([...new Set(collectionIds)]);
  const gen = answeringGeneration(state, modelId);
  const indexed = gen
    ? (db
        .prepare(
          `SELECT coalesce(sum(rows), 0) FROM vector_index_partitions
           WHERE index_id = ? AND dataset_id IN (SELECT value FROM json_each(?)) ${sm ? 'AND similarity_model = ?' : ''}`,
        )
        .pluck()
        .get(...[gen.id, json, ...(sm ? [sm] : [])]) as number)
    : 0;
  const objects = db
    .prepare(
      `SELECT count(*) FROM media m JOIN detected_objects o ON o.media_id = m.id
       WHERE m.dataset_id IN (SELECT value FROM json_each(?)) AND m.status = 'active' AND m.is_current = 1
         AND o.status = 'active' AND ${sm ? 'o.similarity_model = ?' : 'o.similarity_model IS NOT NULL'}`,
    )
    .pluck()
    .get(...[json, ...(sm ? [sm] : [])]) as number;
  return {
    modelId,
    indexed,
    objects,
    fraction: objects === 0 ? 1 : Math.min(1, indexed / objects),
    live: gen?.state === 'live',
  };
}

/** VectorIndex.unindexedModels: models with stored embeddings and no generation. */
export function unindexedModels(state: VectorIndexState): string[] {
  loadGenerations(state);
  const have = new Set([...state.generations.values()].map((gen) => gen.modelId));
  return (state.db.prepare(`SELECT DISTINCT model_id FROM object_embeddings`).pluck().all() as string[]).filter(
    (model) => !have.has(model),
  );
}
