/**
 * A query on pgvector: exact over the allowed rows when they are few, otherwise the model's HNSW index with
 * an iterative scan (the filters apply while the graph is walked, more of it being read until the LIMIT is
 * met), falling back to exact when that still comes back short. So `k` hits come back whenever `k` allowed
 * vectors exist, as the interface promises.
 */
import type { PgRunner, PgTx } from '../../../platform/pgDb.js';
import { normalize } from '../math.js';
import { MAX_K } from '../tuning.js';
import type { VectorHit, VectorQuery } from '../types.js';
import { halfvecOf, literal, modelRow, vectorText, type ModelRow } from './sql.js';
import { annCandidates, MAX_EF_SEARCH, type PgVectorTuning } from './tuning.js';

/** How a pgvector query ran (tests, benchmarks). */
export interface PgSearchInfo {
  strategy: 'ann' | 'exact' | 'empty';
  /** Allowed rows counted up to tuning.exactMax + 1 (null: not counted). */
  allowed: number | null;
  /** The graph walk came back short and the exact scan answered instead. */
  fellBack: boolean;
}

interface HitRow {
  object_id: string;
  media_id: string;
  frame_id: string | null;
  dataset_id: string;
  similarity: number;
}

const toHit = (r: HitRow): VectorHit => ({
  objectId: r.object_id,
  mediaId: r.media_id,
  frameId: r.frame_id,
  collectionId: r.dataset_id,
  similarity: r.similarity,
});

/** A query's filter and its parameters: $1 the similarity model, $2 the collections, $3 the items if any. */
interface Scope {
  where: string;
  params: unknown[];
  /** The query vector's parameter ($n, after the filter's). */
  vector: string;
}

function scopeOf(query: VectorQuery): Scope {
  const where = [
    `model_id = ${literal(query.modelId)}`,
    `similarity_model = $1`,
    `dataset_id = ANY($2::text[])`,
    ...(query.mediaIds ? [`media_id = ANY($3::text[])`] : []),
  ].join(' AND ');
  const params: unknown[] = [query.similarityModel, [...new Set(query.collectionIds)]];
  if (query.mediaIds) params.push([...new Set(query.mediaIds)]);
  return { where, params, vector: `$${params.length + 1}` };
}

/** The filter's parameters, then the vector. */
const withVector = (scope: Scope, query: VectorQuery) => [...scope.params, vectorText(normalize(query.vector))];

/** Every allowed row ranked by its float32 distance: no index serves this ORDER BY, so it is exact. */
async function exact(tx: PgRunner, scope: Scope, query: VectorQuery, k: number): Promise<VectorHit[]> {
  const v = `${scope.vector}::vector`;
  const rows = await tx.many<HitRow>(
    `SELECT object_id, media_id, frame_id, dataset_id, 1 - (embedding <=> ${v}) AS similarity
     FROM vector_entries WHERE ${scope.where}
     ORDER BY embedding <=> ${v}, object_id LIMIT ${k}`,
    withVector(scope, query),
  );
  return rows.map(toHit);
}

/**
 * The HNSW walk with relaxed-order iterative scanning; its candidates (in halfvec order) are re-sorted by
 * the float32 distance outside the MATERIALIZED CTE, as pgvector's README advises for relaxed order.
 */
async function ann(
  tx: PgTx,
  model: ModelRow,
  scope: Scope,
  query: VectorQuery,
  k: number,
  tuning: Required<PgVectorTuning>,
): Promise<VectorHit[]> {
  const candidates = annCandidates(k, query.oversample);
  const ef = Math.min(MAX_EF_SEARCH, Math.max(tuning.efSearch, candidates));
  await tx.query(
    // enable_sort off: the planner must take the HNSW index (the only path that gives the order without a
    // sort) even where its estimates (stale statistics, a small table) would favour the scope btree and a sort.
    `SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true),
            set_config('hnsw.max_scan_tuples', $2, true), set_config('enable_sort', 'off', true)`,
    [String(ef), String(tuning.maxScanTuples)],
  );
  const v = scope.vector;
  const rows = await tx.many<HitRow>(
    `WITH ann AS MATERIALIZED (
       SELECT object_id, media_id, frame_id, dataset_id, embedding FROM vector_entries
       WHERE ${scope.where}
       ORDER BY ${halfvecOf(model.dims)} <=> ${v}::halfvec(${model.dims}) LIMIT ${candidates}
     )
     SELECT object_id, media_id, frame_id, dataset_id, 1 - (embedding <=> ${v}::vector) AS similarity
     FROM ann ORDER BY embedding <=> ${v}::vector, object_id LIMIT ${k}`,
    withVector(scope, query),
  );
  return rows.map(toHit);
}

/** VectorIndex.search with how it ran. */
export async function searchWithInfo(
  db: { tx<T>(fn: (tx: PgTx) => Promise<T>): Promise<T> },
  tuning: Required<PgVectorTuning>,
  query: VectorQuery,
): Promise<{ hits: VectorHit[]; info: PgSearchInfo }> {
  const empty = { hits: [], info: { strategy: 'empty' as const, allowed: null, fellBack: false } };
  if (query.collectionIds.length === 0 || query.mediaIds?.length === 0) return empty;
  const k = Math.max(1, Math.min(MAX_K, Math.floor(query.k)));
  // One transaction: SET LOCAL (set_config(…, true)) lasts until its end, and the registry row and the
  // entries are read from one snapshot.
  return db.tx(async (tx) => {
    const model = await modelRow(tx, query.modelId);
    if (!model) return empty;
    if (query.vector.length !== model.dims)
      throw new Error(`vector index for model ${query.modelId} has ${model.dims} dims, not ${query.vector.length}`);
    const scope = scopeOf(query);
    const strategy = query.strategy ?? 'auto';
    let allowed: number | null = null;
    // Only an item filter is counted: collections are mostly big, and a small one among big ones costs the
    // graph walk at most max_scan_tuples before the exact fallback.
    if (strategy === 'auto' && query.mediaIds) {
      allowed = (await tx.one<{ n: number }>(
        `SELECT count(*) AS n FROM (SELECT 1 FROM vector_entries WHERE ${scope.where} LIMIT ${tuning.exactMax + 1}) s`,
        scope.params,
      ))!.n;
      if (allowed === 0) return { hits: [], info: { strategy: 'exact' as const, allowed, fellBack: false } };
    }
    // A model being built for the first time has no HNSW index yet: exact answers meanwhile.
    if (strategy === 'exact' || model.state !== 'live' || (allowed !== null && allowed <= tuning.exactMax))
      return { hits: await exact(tx, scope, query, k), info: { strategy: 'exact' as const, allowed, fellBack: false } };
    const hits = await ann(tx, model, scope, query, k, tuning);
    if (hits.length >= k) return { hits, info: { strategy: 'ann' as const, allowed, fellBack: false } };
    await tx.query(`SELECT set_config('enable_sort', 'on', true)`);
    return { hits: await exact(tx, scope, query, k), info: { strategy: 'exact' as const, allowed, fellBack: true } };
  });
}
