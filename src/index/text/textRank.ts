/**
 * The text score in 0..1 (`textRank`), which ranking combines with vector
 * similarity; see TextHit.bm25 (textIndex.ts) for the raw score it is made from.
 */

/**
 * Where the bm25 factor is half-way between its floor and 1: the average bm25
 * per query word. One word's bm25 is about its idf, ln(1 + N/n): 4..10 for a
 * rare word in a library of thousands, about 1 for a word in a third of it,
 * under 1 in a library of a handful of items.
 */
export const TEXT_RANK_K = 3;
/** Share of the score earned by matching every word, whatever bm25 says. */
export const TEXT_RANK_FLOOR = 0.6;

/**
 * The text score in 0..1, monotonic in both bm25 and the words matched:
 *
 *   coverage = termsMatched / termsTotal                        (0..1)
 *   a        = bm25 / termsTotal                                (evidence per word, ≥ 0)
 *   textRank = coverage² × (0.6 + 0.4 × a / (a + 3))
 *
 * bm25 (see TextHit.bm25; SQLite's own is the same up to sign) is unbounded
 * and its scale depends on the library: idf grows with the log of the number
 * of rows, and in a library of one item a perfect match has an idf near 0. So
 * bm25 only moves a hit within the band its coverage gives it: every query
 * word found gives at least 0.6 (a word painted on a sign or in a file name is
 * found and stays well above minScore), strong evidence (rare words, repeated)
 * approaches 1. Coverage is squared so partial matches fall off fast: 1 of 2
 * words gives 0.15..0.25, 1 of 3 0.07..0.11, 1 of 4 0.04..0.06 (minScore's
 * default 0.05 is "barely related").
 */
export function textRank(bm25: number, termsMatched: number, termsTotal: number): number {
  if (!(termsTotal > 0) || !(termsMatched > 0)) return 0;
  const coverage = Math.min(1, termsMatched / termsTotal);
  const a = Math.max(0, bm25) / termsTotal;
  const saturation = Number.isFinite(a) ? a / (a + TEXT_RANK_K) : 1;
  return Math.min(1, Math.max(0, coverage * coverage * (TEXT_RANK_FLOOR + (1 - TEXT_RANK_FLOOR) * saturation)));
}
