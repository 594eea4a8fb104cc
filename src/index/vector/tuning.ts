/**
 * The engine-independent tuning of a query: how many first-pass candidates are
 * re-ranked and how many of the best are rescored exactly. The figures behind
 * these numbers are in docs/measurements/vector-index.md.
 */

/** vec0's limit on k. */
export const MAX_K = 4096;

/**
 * First-pass candidates re-ranked: max(k × MIN_OVERSAMPLE, MIN_CANDIDATES), at
 * most MAX_K. One bit a dimension cannot resolve neighbours that barely stand
 * out of the bulk, so recall keeps rising with the candidates up to about a
 * thousand; re-ranking from memory is cheap a candidate and the bounded first
 * pass hardly depends on the number, so the floor costs little.
 */
export const MIN_CANDIDATES = 1024;
export const MIN_OVERSAMPLE = 8;

/*
 * Coarse lists (IVF) decide how many codes the first pass reads in a big
 * collection; their tuning is in ivf.ts.
 */

/** The number of first-pass candidates for k hits (`oversample` overrides the policy: k × oversample). */
export function candidatesFor(k: number, oversample?: number): number {
  const want = oversample !== undefined ? Math.ceil(k * oversample) : Math.max(k * MIN_OVERSAMPLE, MIN_CANDIDATES);
  return Math.min(MAX_K, Math.max(k, want));
}

/**
 * Rows rescored exactly (float32) after the int8 re-rank: the best min(k, 100)
 * plus a margin for int8's error on the cosine (σ ≈ 3·10⁻⁴ at 768-d). Hits past
 * the 100th keep their int8 similarity: each exact rescore is a row read that
 * is a disk read when the page is cold, and that precision does not move a rank there.
 */
export const EXACT_TOP = 100;
export const exactRescoreFor = (k: number): number => {
  const n = Math.min(k, EXACT_TOP);
  return n + Math.max(8, Math.ceil(n / 2));
};

/** recall@k of `got` against `truth` (ids), as a fraction of min(k, truth.length): how tuning is judged. */
export function recallAt(k: number, got: string[], truth: string[]): number {
  const want = new Set(truth.slice(0, k));
  if (want.size === 0) return 1;
  let hit = 0;
  for (const id of got.slice(0, k)) if (want.has(id)) hit++;
  return hit / want.size;
}
