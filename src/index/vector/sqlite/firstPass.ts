/**
 * The first pass of a query: the best `want` rows by Hamming distance between
 * 1-bit codes, over the in-memory copy of the codes when it is loaded and
 * current, else through vec0's KNN statements bounded by a distance read off
 * the sample table (why: README.md, "the sample table").
 */
import { rowidBitmap, type BitCodeMirror, type CodeCandidate } from '../bitCodeMirror.js';
import type { VectorSearchInfo } from '../types.js';
import type { Part } from './plan.js';
import type { Generation, VectorIndexState } from './state.js';
import { CHUNK_SIZE, SAMPLE_RATE } from './tuning.js';

/** The bound aims at this many times the candidates wanted (the first pass then keeps the best). */
const BOUND_MARGIN = 2;
/** The sample KNN costs sample rows × rank itself: past this rank the bound is not worth it. */
const MAX_SAMPLE_RANK = 1_024;
/**
 * Bounds tried for 1×, 4× and 16× the wanted rows; unbounded only when the
 * sample cannot tell (an unbounded KNN with a large k over a big collection
 * costs seconds).
 */
const BOUND_WIDTHS = [1, 4, 16];

/** One query's first pass: what it scans and for how many rows. */
export interface FirstPassQuery {
  gen: Generation;
  /** The query's 1-bit code. */
  code: Buffer;
  parts: Part[];
  sm: string;
  want: number;
  /** Only these rows (filtered inside the scan), or null. */
  allowed: number[] | null;
}

/** The first pass: the best `want` rows by Hamming distance over the parts (optionally only `allowed` rows). */
export function firstPass(
  state: VectorIndexState,
  query: FirstPassQuery,
  info: VectorSearchInfo,
  codes: BitCodeMirror | null,
): CodeCandidate[] {
  if (codes) {
    info.firstPass = 'memory';
    const { parts, sm, allowed } = query;
    return codes.scan(
      parts.map((part) => ({ ds: part.ds, sm, list: part.list })),
      query.code,
      query.want,
      allowed ? rowidBitmap(allowed) : null,
    );
  }
  info.firstPass = 'sqlite';
  return sqliteFirstPass(state, query, info);
}

/** The first pass through vec0: bounded KNN statements, widened while a bound cuts it short. */
function sqliteFirstPass(state: VectorIndexState, query: FirstPassQuery, info: VectorSearchInfo): CodeCandidate[] {
  const { parts, want, allowed } = query;
  const total = parts.reduce((a, part) => a + part.rows, 0);
  const reachable = allowed ? Math.min(allowed.length, total) : total;
  const selectivity = allowed ? Math.min(1, allowed.length / Math.max(1, total)) : 1;
  const allowedJson = allowed ? JSON.stringify(allowed) : null;
  // Work of an unbounded KNN ≈ rows scanned × min(k, candidates per chunk) (see README.md).
  const work = total * Math.min(want, CHUNK_SIZE * selectivity);
  for (let attempt = 0; ; attempt++) {
    const bound =
      work > state.tuning.unboundedMaxWork && attempt < BOUND_WIDTHS.length
        ? sampledBound(query, selectivity, BOUND_WIDTHS[attempt])
        : null;
    const out: CodeCandidate[] = [];
    for (const part of parts) {
      for (const candidate of knnOver(query, part, allowedJson, bound)) out.push(candidate);
      info.knnQueries++;
    }
    info.threshold = bound;
    // A bound too tight for this query cut the pass short: widen it (half the wanted rows is enough past the first try).
    if (bound !== null && out.length < Math.min(attempt === 0 ? want : Math.ceil(want / 2), reachable)) continue;
    out.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
    return out.length > want ? out.slice(0, want) : out;
  }
}

/** One KNN statement over a part: a coarse list, the allowed rows of a partition, or a whole partition. */
function knnOver(query: FirstPassQuery, part: Part, allowedJson: string | null, bound: number | null): CodeCandidate[] {
  const { gen, code, sm } = query;
  const { ds, list } = part;
  const k = Math.min(query.want, part.rows);
  if (list !== null) {
    // One coarse list (never with `allowed`: filtered-inside scans read whole partitions).
    const listKey = BigInt(list);
    return (
      bound === null
        ? gen.listSql!.knn.all(code, k, ds, sm, listKey)
        : gen.listSql!.knnBound.all(code, k, ds, sm, listKey, bound)
    ) as CodeCandidate[];
  }
  if (allowedJson) {
    return (
      bound === null
        ? gen.sql.knnIn.all(code, k, ds, sm, allowedJson)
        : gen.sql.knnInBound.all(code, k, ds, sm, allowedJson, bound)
    ) as CodeCandidate[];
  }
  return (
    bound === null ? gen.sql.knn.all(code, k, ds, sm) : gen.sql.knnBound.all(code, k, ds, sm, bound)
  ) as CodeCandidate[];
}

/**
 * The Hamming bound under which about `want` rows of these partitions lie
 * (over the allowed fraction `selectivity`), from the sample table; null when
 * the sample is too small to tell.
 */
function sampledBound(query: FirstPassQuery, selectivity: number, widen: number): number | null {
  const { gen, code, sm } = query;
  const rank = Math.ceil((BOUND_MARGIN * widen * query.want) / (Math.max(selectivity, 1e-9) * SAMPLE_RATE)) + 4;
  if (rank > MAX_SAMPLE_RANK) return null;
  const distances: number[] = [];
  for (const part of query.parts) {
    if (part.rows < SAMPLE_RATE) continue;
    const got =
      part.list === null
        ? gen.sql.sampleKnn.all(code, rank, part.ds, sm)
        : gen.listSql!.sampleKnn.all(code, rank, part.ds, sm, BigInt(part.list));
    for (const row of got as Array<{ distance: number }>) distances.push(row.distance);
  }
  if (distances.length < rank) return null;
  distances.sort((a, b) => a - b);
  return distances[rank - 1];
}
