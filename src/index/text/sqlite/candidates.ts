import type { Occurrences } from './postings.js';
import { FTS_BM25, WORD_COLUMNS } from './schema.js';
import type { TextSearchState } from './state.js';
import type { Term } from './terms.js';
import { FULL_MATCH_CAP } from './tuning.js';

/**
 * Rowids of candidate rows from FTS5, best first, within the filter (an FTS5 scope clause and/or a join on
 * media ids): the rows holding every word (newest first), then rows holding some, ranked by bm25 over the
 * rarer words, then rows with any word, newest first.
 */
export function candidates(
  state: TextSearchState,
  terms: Term[],
  scope: string | null,
  mediaIds: string[] | null,
  want: number,
): number[] {
  const { sql, tuning } = state;
  const where = (words: string) => (scope ? `(${words}) AND (${scope})` : words);
  const from = mediaIds
    ? `text_index t JOIN text_index_docs d ON d.id = t.rowid WHERE text_index MATCH ? AND d.media_id IN (SELECT value FROM json_each(?))`
    : `text_index t WHERE text_index MATCH ?`;
  const args = (words: string) => (mediaIds ? [where(words), JSON.stringify(mediaIds)] : [where(words)]);
  const ids: number[] = [];
  const seen = new Set<number>();
  const take = (found: number[]) => {
    for (const id of found) {
      if (seen.has(id) || ids.length >= want) continue;
      seen.add(id);
      ids.push(id);
    }
  };
  const newest = sql.prepared(`SELECT t.rowid FROM ${from} ORDER BY t.rowid DESC LIMIT ?`).pluck();
  // Rows with every word: full matches, all about as good (streamed newest first, stops at the limit).
  if (terms.length > 1)
    take(newest.all(...args(terms.map((t) => `(${WORD_COLUMNS} : ${t.expr})`).join(' AND ')), want) as number[]);
  if (ids.length >= want) return ids;
  // Rows with some words: the rarest words first, as many as FTS5 can rank by bm25 cheaply together.
  // (With one word every match is a full one, and scores differ only by repeats: no ranking needed.)
  const ranked: Term[] = [];
  let matches = 0;
  for (const t of terms.length > 1 ? [...terms].sort((a, b) => a.df - b.df) : []) {
    if (matches + t.df > tuning.rankedMatches) break;
    ranked.push(t);
    matches += t.df;
  }
  if (ranked.length) {
    const words = `${WORD_COLUMNS} : (${ranked.map((t) => t.expr).join(' OR ')})`;
    take(
      sql
        .prepared(`SELECT t.rowid FROM ${from} ORDER BY ${FTS_BM25} LIMIT ?`)
        .pluck()
        .all(...args(words), want + ids.length) as number[],
    );
  }
  // Then rows with any word, newest first.
  if (ids.length < want && ranked.length < terms.length) {
    take(
      newest.all(
        ...args(`${WORD_COLUMNS} : (${terms.map((t) => t.expr).join(' OR ')})`),
        want + ids.length,
      ) as number[],
    );
  }
  return ids;
}

/**
 * The occurrences of the rows holding every query word (within the scope clause), when there are at least
 * `want` and at most FULL_MATCH_CAP of them and at most one word may match as a prefix: those rows are then
 * the best (every other row misses a word, a whole level below any of them, which miss at most half of
 * one), so no other row's occurrences are needed to rank. Fills in each word's exact df. Null otherwise.
 */
export function readFullMatches(
  state: TextSearchState,
  terms: Term[],
  scope: string | null,
  want: number,
): Occurrences | null {
  const { sql, wordCounts } = state;
  if (terms.filter((t) => t.prefix !== null).length > 1) return null;
  const every = terms.map((t) => `(${WORD_COLUMNS} : ${t.expr})`).join(' AND ');
  const ids = sql.firstMatches.all(scope ? `${every} AND (${scope})` : every, FULL_MATCH_CAP + 1) as number[];
  if (ids.length < want || ids.length > FULL_MATCH_CAP) return null;
  for (const t of terms) {
    let df = wordCounts.get(t.expr, true);
    if (df === null) wordCounts.set(t.expr, (df = sql.matchCount.get(`${WORD_COLUMNS} : ${t.expr}`) as number), true);
    t.df = df;
  }
  return state.postings(terms, Infinity, null, ids);
}
