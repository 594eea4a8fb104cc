/**
 * A query from start to end: validation, the choice of strategy (exact
 * re-rank of every allowed row, or a first pass then re-rank), filtering by
 * allowed items inside the scan or after it. The steps themselves are in
 * plan.ts, firstPass.ts and rerank.ts; how a query runs: ../README.md.
 */
import { invalid } from '../../../platform/errors.js';
import type { BitCodeMirror } from '../bitCodeMirror.js';
import { normalize, vectorBytes } from '../math.js';
import { quantizeBits } from '../quantize.js';
import { candidatesFor, MAX_K } from '../tuning.js';
import { SIMILARITY_MODELS, type VectorHit, type VectorQuery, type VectorSearchInfo } from '../types.js';
import { firstPass } from './firstPass.js';
import { planParts, type Part } from './plan.js';
import { answeringGeneration } from './registry.js';
import { rerank, topHits } from './rerank.js';
import type { Generation, VectorIndexState } from './state.js';
import { JSON_CHUNK } from './tuning.js';
import { warmGeneration } from './warm.js';

/** The post-filter path re-ranks at least this many allowed candidates (else it filters inside the scan after all). */
const MIN_POST_CANDIDATES = 256;

export interface SearchResult {
  hits: VectorHit[];
  info: VectorSearchInfo;
}

/** What every path of one query works with, worked out once. */
interface QueryContext {
  state: VectorIndexState;
  query: VectorQuery;
  gen: Generation;
  info: VectorSearchInfo;
  unit: Float32Array;
  queryBytes: Buffer;
  code: Buffer;
  want: number;
  /** The collections' partitions with rows, whole. */
  parts: Part[];
  total: number;
  collectionsJson: string;
  /** The in-memory codes when current for these partitions, else null (vec0 answers). */
  codes: BitCodeMirror | null;
}

const emptyInfo = (query: VectorQuery): VectorSearchInfo => ({
  strategy: 'empty',
  firstPass: 'none',
  candidates: 0,
  cacheMisses: 0,
  knnQueries: 0,
  threshold: null,
  filter: query.mediaIds ? 'inside' : 'none',
  lists: 0,
  scanned: 0,
});

/** Runs a query, synchronously, and tells how it ran. */
export function searchWithInfo(state: VectorIndexState, query: VectorQuery): SearchResult {
  const info = emptyInfo(query);
  if (!Number.isInteger(query.k) || query.k < 1 || query.k > MAX_K)
    throw invalid(`vector search: k must be 1..${MAX_K}`);
  if (!SIMILARITY_MODELS.includes(query.similarityModel))
    throw invalid(`vector search: unknown similarity model ${query.similarityModel}`);
  const gen = answeringGeneration(state, query.modelId);
  if (!gen) return { hits: [], info };
  if (query.vector.length !== gen.dims)
    throw invalid(`vector search: model ${query.modelId} has ${gen.dims} dims, the query has ${query.vector.length}`);
  if (state.tuning.autoWarm && gen.warm === 'no') void warmGeneration(state, gen).catch(() => undefined);
  const collectionIds = [...new Set(query.collectionIds)];
  if (collectionIds.length === 0 || (query.mediaIds && query.mediaIds.length === 0)) return { hits: [], info };
  const collectionsJson = JSON.stringify(collectionIds);
  const partitions = state.sql.partitionRows.all(gen.id, query.similarityModel, collectionsJson) as Array<{
    dataset_id: string;
    rows: number;
  }>;
  const parts = partitions.map((row): Part => ({ ds: row.dataset_id, list: null, rows: row.rows }));
  const total = parts.reduce((a, part) => a + part.rows, 0);
  if (total === 0) return { hits: [], info };
  // The first pass runs over the in-memory codes once they are loaded and current (else through vec0).
  const codes = gen.codes.ready(parts.map((part) => ({ ds: part.ds, sm: query.similarityModel, rows: part.rows })));
  const unit = normalize(query.vector);
  const bits = quantizeBits(unit, gen.center);
  const ctx: QueryContext = {
    state,
    query,
    gen,
    info,
    unit,
    parts,
    total,
    collectionsJson,
    codes,
    queryBytes: vectorBytes(unit),
    code: Buffer.from(bits.buffer, bits.byteOffset, bits.byteLength),
    want: candidatesFor(query.k, query.oversample),
  };
  return dispatch(ctx);
}

/** Picks the strategy: exact or first pass, and how the allowed items apply. */
function dispatch(ctx: QueryContext): SearchResult {
  const { state, query, gen, want, total, info } = ctx;
  const strategy = query.strategy ?? 'auto';
  if (!query.mediaIds) {
    // Small collections: re-ranking every vector from memory beats a KNN whose k is most of the rows.
    if (strategy === 'exact' || (strategy === 'auto' && total <= 2 * want))
      return exactSearch(ctx, gen.sql.allRows.all(ctx.collectionsJson, query.similarityModel) as number[]);
    return annSearch(ctx, null);
  }
  const mediaIds = [...new Set(query.mediaIds)];
  if (mediaIds.length <= state.tuning.resolveMaxMedia || strategy === 'exact') {
    const allowed = resolveAllowed(ctx, mediaIds);
    if (allowed.length === 0) return { hits: [], info };
    const { exactMax, exactBase, exactFraction } = state.tuning;
    const exactLimit = Math.max(want, Math.min(exactMax, exactBase + total * exactFraction));
    if (strategy === 'exact' || (strategy === 'auto' && allowed.length <= exactLimit)) return exactSearch(ctx, allowed);
    return annSearch(ctx, allowed);
  }
  return postFilterSearch(ctx, mediaIds);
}

/** Re-ranks every one of these rows (no first pass). */
function exactSearch(ctx: QueryContext, rowids: number[]): SearchResult {
  const { info } = ctx;
  info.strategy = 'exact';
  info.candidates = rowids.length;
  return { hits: rerankToHits(ctx, rowids), info };
}

/** First pass (over every list when filtered inside the scan, else the nearest lists), then re-rank. */
function annSearch(ctx: QueryContext, allowed: number[] | null): SearchResult {
  const { state, query, gen, info } = ctx;
  // Filtered inside the scan: every list (the allowed rows may sit anywhere); else the nearest lists.
  const scan = allowed
    ? ctx.parts
    : planParts(state, gen, ctx.unit, ctx.parts, query.similarityModel, ctx.want, query.probe, info).parts;
  if (allowed) info.scanned = ctx.total;
  const candidates = firstPass(state, firstPassOf(ctx, scan, ctx.want, allowed), info, ctx.codes);
  info.strategy = 'ann';
  info.candidates = candidates.length;
  return {
    hits: rerankToHits(
      ctx,
      candidates.map((x) => x.rowid),
    ),
    info,
  };
}

const firstPassOf = (ctx: QueryContext, parts: Part[], want: number, allowed: number[] | null) => ({
  gen: ctx.gen,
  code: ctx.code,
  parts,
  sm: ctx.query.similarityModel,
  want,
  allowed,
});

function rerankToHits(ctx: QueryContext, rowids: number[]): VectorHit[] {
  const { state, gen, query } = ctx;
  return topHits(gen, ctx.queryBytes, rerank(state, gen, ctx.unit, rowids, ctx.info), query.k, query.exactTop);
}

/** The rows of these items in the query's collections and similarity model. */
function resolveAllowed(ctx: QueryContext, mediaIds: string[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < mediaIds.length; i += JSON_CHUNK) {
    const chunk = JSON.stringify(mediaIds.slice(i, i + JSON_CHUNK));
    for (const rowid of ctx.gen.sql.resolve.all(chunk, ctx.query.similarityModel, ctx.collectionsJson) as number[])
      out.push(rowid);
  }
  return out;
}

/**
 * Many items allowed: an unfiltered first pass with a bigger k, filtered
 * after, refilled with a bigger k while short; over every list when the
 * nearest ones run out of allowed rows; inside the scan when still short at
 * vec0's k limit.
 */
function postFilterSearch(ctx: QueryContext, mediaIds: string[]): SearchResult {
  const { state, query, gen, info, want, total } = ctx;
  info.filter = 'post';
  const mediaSet = new Set(mediaIds);
  const enough = Math.min(want, Math.max(4 * query.k, MIN_POST_CANDIDATES));
  let fetch = Math.min(MAX_K, Math.ceil(want / Math.min(1, mediaIds.length / total)));
  let everyList = false;
  for (;;) {
    info.lists = 0;
    const plan = everyList
      ? { parts: ctx.parts, subset: false }
      : planParts(state, gen, ctx.unit, ctx.parts, query.similarityModel, fetch, query.probe, info);
    if (everyList) info.scanned = total;
    const candidates = firstPass(state, firstPassOf(ctx, plan.parts, fetch, null), info, ctx.codes);
    const media = mediaOfRows(
      gen,
      candidates.map((x) => x.rowid),
    );
    const kept = candidates.filter((x) => mediaSet.has(media.get(x.rowid) ?? ''));
    const exhausted = candidates.length < fetch;
    // The nearest lists ran out of allowed rows: scan them all.
    if (exhausted && plan.subset && kept.length < enough) {
      everyList = true;
      continue;
    }
    // Enough allowed candidates to re-rank (fewer than `want` is fine past 4 per hit: the scan order is the same).
    if (kept.length >= enough || exhausted) {
      info.strategy = 'ann';
      const use = kept.slice(0, want).map((x) => x.rowid);
      info.candidates = use.length;
      return { hits: rerankToHits(ctx, use), info };
    }
    if (fetch < MAX_K) {
      fetch = Math.min(MAX_K, fetch * 4);
      continue;
    }
    // Still short at vec0's k limit: filter inside the scan after all.
    info.filter = 'inside';
    return annSearch(ctx, resolveAllowed(ctx, mediaIds));
  }
}

/** The item of each row. */
function mediaOfRows(gen: Generation, rowids: number[]): Map<number, string> {
  const media = new Map<number, string>();
  for (let i = 0; i < rowids.length; i += JSON_CHUNK) {
    const chunk = JSON.stringify(rowids.slice(i, i + JSON_CHUNK));
    for (const row of gen.sql.mediaOf.all(chunk) as Array<{ rowid: number; mediaId: string }>)
      media.set(row.rowid, row.mediaId);
  }
  return media;
}
