import type { TextHit } from '../textIndex.js';
import type { Occurrences } from './postings.js';
import { WORD_COLUMNS } from './schema.js';
import type { TextSearchState } from './state.js';
import type { Term } from './terms.js';

/** BM25 term-frequency saturation. */
const K1 = 1.2;
/** Above any bm25 of a query (at most 12 words × idf ≤ ln(1 + 2·rows) × (k1 + 1): under 600 up to 10⁹ rows). */
const RANK_SPAN = 1024;

/** bm25 and words matched (a prefix-only match counts half) of these term frequencies (see TextHit). */
export type Score = (
  tf: ArrayLike<number>,
  prefixTf: ArrayLike<number>,
  at?: number,
) => { bm25: number; matched: number };

/**
 * The BM25 of the query's words (idf from the index's own counts, term frequency saturated with k1, no length
 * normalisation: texts are short), read at `at` in flat per-word arrays. The result object is reused (a row at
 * a time, tens of thousands of them with common words): read it at once.
 */
export function scorer(terms: Term[], rows: number): Score {
  const idf = terms.map((t) => Math.log(1 + (rows - t.df + 0.5) / (t.df + 0.5)));
  const scored = { bm25: 0, matched: 0 };
  return (tfs, prefixTfs, at = 0) => {
    let bm25 = 0;
    let matched = 0;
    for (let i = 0; i < terms.length; i++) {
      const tf = tfs[at + i];
      const prefixTf = prefixTfs[at + i];
      if (tf > 0) {
        bm25 += (idf[i] * tf * (K1 + 1)) / (tf + K1);
        matched += 1;
      } else if (prefixTf > 0) {
        bm25 += (0.5 * idf[i] * prefixTf * (K1 + 1)) / (prefixTf + K1);
        matched += 0.5;
      }
    }
    scored.bm25 = bm25;
    scored.matched = matched;
    return scored;
  };
}

/**
 * The best `want` rows of the index's occurrences (within the collections of the scope clause): by the
 * score of the row alone, then newest.
 */
export function bestRows(
  state: TextSearchState,
  occ: Occurrences,
  terms: Term[],
  scope: string | null,
  score: Score,
  want: number,
): number[] {
  const inScope = scope
    ? new Set(
        state.sql.matchingRows.all(
          `(${WORD_COLUMNS} : (${terms.map((t) => t.expr).join(' OR ')})) AND (${scope})`,
        ) as number[],
      )
    : null;
  // One number orders rows by words matched, then bm25 (always below RANK_SPAN): sorting plain numbers is
  // several times cheaper than sorting objects with a comparator.
  const rows = occ.ids.length;
  const keys = new Float64Array(rows).fill(-1);
  // Rows per words-matched level (half steps): rows below the level the want-th best row is on never make
  // the cut, so only rows at or above it are sorted (with common words, the few holding all of them).
  const levels = new Uint32Array(terms.length * 2 + 1);
  for (let slot = 0; slot < rows; slot++) {
    if (inScope && !inScope.has(occ.ids[slot])) continue;
    const { matched, bm25 } = score(occ.tf, occ.prefixTf, slot * occ.words);
    keys[slot] = matched * RANK_SPAN + Math.min(bm25, RANK_SPAN - 1);
    levels[Math.round(matched * 2)] += 1;
  }
  let level = levels.length - 1;
  for (let seen = levels[level]; level > 0 && seen < want;) seen += levels[--level];
  const floor = (level / 2) * RANK_SPAN;
  const best: number[] = [];
  for (let slot = 0; slot < rows; slot++) if (keys[slot] >= floor && keys[slot] >= 0) best.push(slot);
  best.sort((a, b) => keys[b] - keys[a] || occ.ids[b] - occ.ids[a]);
  return best.slice(0, want).map((slot) => occ.ids[slot]);
}

/** Hits best first (score, then bm25, then item and frame ids), of the collections asked for, at most `limit`. */
export function bestHits(hits: TextHit[], collectionIds: string[], limit: number): TextHit[] {
  const allowed = new Set(collectionIds);
  hits.sort(
    (a, b) =>
      b.score - a.score ||
      b.bm25 - a.bm25 ||
      (a.mediaId < b.mediaId ? -1 : a.mediaId > b.mediaId ? 1 : 0) ||
      ((a.frameId ?? '') < (b.frameId ?? '') ? -1 : 1),
  );
  return hits.filter((h) => allowed.has(h.collectionId)).slice(0, limit);
}
