/**
 * The second and third steps of a query: int8 scores of the first-pass
 * candidates (from the in-memory cache), then exact float32 rescoring of the
 * best few and the hits' ids.
 */
import { cosineFromL2 } from '../math.js';
import { int8BlobDot } from '../quantize.js';
import { exactRescoreFor } from '../tuning.js';
import type { VectorHit, VectorSearchInfo } from '../types.js';
import type { Generation, VectorIndexState } from './state.js';
import { JSON_CHUNK } from './tuning.js';

/** A row and its similarity to the query so far. */
export interface ScoredRow {
  rowid: number;
  score: number;
}

/** int8 scores of the rows against the unit query, from the cache (misses read from the q8 table and cached). */
export function rerank(
  state: VectorIndexState,
  gen: Generation,
  unit: Float32Array,
  rowids: number[],
  info: VectorSearchInfo,
): ScoredRow[] {
  const { cache } = state;
  const out: ScoredRow[] = [];
  const missing: number[] = [];
  let lastSlab = -1;
  for (const rowid of rowids) {
    const score = cache.dot(gen.id, rowid, unit);
    if (score === null) missing.push(rowid);
    else out.push({ rowid, score });
    const slab = rowid >> 10;
    if (slab !== lastSlab) {
      cache.touch(gen.id, rowid);
      lastSlab = slab;
    }
  }
  info.cacheMisses += missing.length;
  for (let i = 0; i < missing.length; i += JSON_CHUNK) {
    const rows = gen.sql.q8Of.all(JSON.stringify(missing.slice(i, i + JSON_CHUNK))) as Array<{ id: number; q: Buffer }>;
    for (const row of rows) {
      cache.put(gen.id, row.id, row.q);
      out.push({ rowid: row.id, score: cache.dot(gen.id, row.id, unit) ?? int8BlobDot(row.q, unit) });
    }
  }
  return out;
}

/**
 * The best k hits from the int8 scores: the best exactRescoreFor(k) rescored
 * exactly from float32 (all of them up to k = 100), the rest keep their int8
 * similarity; best first by the similarity returned.
 */
export function topHits(
  gen: Generation,
  queryBytes: Buffer,
  scored: ScoredRow[],
  k: number,
  exactTop: number | undefined,
): VectorHit[] {
  scored.sort((a, b) => b.score - a.score || a.rowid - b.rowid);
  if (scored.length === 0) return [];
  const exactCount = Math.min(scored.length, exactTop ?? exactRescoreFor(k));
  const exact = new Map<number, number>();
  if (exactCount > 0) {
    const rowids = JSON.stringify(scored.slice(0, exactCount).map((x) => x.rowid));
    for (const row of gen.sql.exact.all(queryBytes, rowids) as Array<{ id: number; d: number }>) {
      exact.set(row.id, cosineFromL2(row.d));
    }
  }
  const ranked = scored
    .slice(0, Math.max(k, exactCount))
    .map((x) => ({ rowid: x.rowid, score: exact.get(x.rowid) ?? x.score }));
  ranked.sort((a, b) => b.score - a.score || a.rowid - b.rowid);
  return hitsOf(gen, ranked.slice(0, k));
}

type HitIds = Omit<VectorHit, 'similarity'>;

/** The ids of the rows (object, item, frame, collection), in their order. */
function hitsOf(gen: Generation, top: ScoredRow[]): VectorHit[] {
  const ids = new Map<number, HitIds>();
  for (let i = 0; i < top.length; i += JSON_CHUNK) {
    const rowids = JSON.stringify(top.slice(i, i + JSON_CHUNK).map((x) => x.rowid));
    for (const row of gen.sql.hitsOf.all(rowids) as Array<HitIds & { id: number }>) ids.set(row.id, row);
  }
  const out: VectorHit[] = [];
  for (const x of top) {
    const row = ids.get(x.rowid);
    if (row)
      out.push({
        objectId: row.objectId,
        mediaId: row.mediaId,
        frameId: row.frameId,
        collectionId: row.collectionId,
        similarity: x.score,
      });
  }
  return out;
}
