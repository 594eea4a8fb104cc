import { parseQuery } from '../query.js';
import type { TextHit, TextSearchQuery } from '../textIndex.js';
import { candidates, readFullMatches } from './candidates.js';
import type { Occurrences } from './postings.js';
import { bestHits, bestRows, scorer, type Score } from './ranking.js';
import { quote, scopeToken, type DocRow } from './schema.js';
import type { TextSearchState } from './state.js';
import { documentFrequency, toTerms, type Term } from './terms.js';
import { DIRECT_ROWS, MAX_CANDIDATES } from './tuning.js';
import { analyseOccurrences, analyseText, groupUnits, unitHits } from './units.js';

/** One search (the steps are described in textIndex.ts). */
export function searchText(state: TextSearchState, q: TextSearchQuery): TextHit[] {
  const limit = Math.floor(q.limit);
  const collectionIds = [...new Set(q.collectionIds)];
  const mediaIds = q.mediaIds ? [...new Set(q.mediaIds)] : null;
  if (!(limit > 0) || collectionIds.length === 0 || (mediaIds && mediaIds.length === 0)) return [];
  const words = parseQuery(q.query, { prefix: q.prefix });
  if (words.length === 0) return [];
  const rows = Math.max(1, state.sql.rowCount.get() as number);
  const terms = toTerms(state, words);
  if (terms.length === 0) return [];
  const { minCandidates } = state.tuning;
  const want = Math.min(Math.max(limit + Math.min(limit, 100), minCandidates), Math.max(limit, MAX_CANDIDATES));
  const scope = (state.sql.otherCollections.get(JSON.stringify(collectionIds)) as number)
    ? `scope : (${collectionIds.map((d) => quote(scopeToken(d))).join(' OR ')})`
    : null;
  const { occurrences, fullMatches } = readOccurrences(state, terms, scope, mediaIds, want);
  for (const t of terms) t.df = Number.isNaN(t.df) ? documentFrequency(state, t.expr, rows) : Math.min(t.df, rows);

  // 1. candidate rows
  const score = scorer(terms, rows);
  const docs = occurrences
    ? docsOfOccurrences(state, occurrences, fullMatches, terms, scope, score, want)
    : candidateDocs(state, terms, scope, mediaIds, collectionIds, want);
  if (docs.length === 0) return [];
  // 2. frames and items, with the items of the frames; what matched where
  const units = groupUnits(docs, terms);
  if (occurrences) analyseOccurrences(state, units, occurrences, collectionIds, fullMatches ? terms : null);
  else analyseText(state, units, terms);
  // 3. scores
  return bestHits(unitHits(units, terms, score), collectionIds, limit);
}

/**
 * No item list (those are matched by FTS5): the words' occurrences are read from the index. Common words (or
 * not yet counted), when enough rows hold them all: those rows' only. Otherwise, rare enough words (unless the
 * cached counts already say too many): every occurrence, and so their exact df. Null: FTS5 finds candidates.
 */
function readOccurrences(
  state: TextSearchState,
  terms: Term[],
  scope: string | null,
  mediaIds: string[] | null,
  want: number,
): { occurrences: Occurrences | null; fullMatches: boolean } {
  const { fullMatchRows, postingsBudget } = state.tuning;
  const known = terms.reduce((n, t) => n + (Number.isNaN(t.df) ? 0 : t.df), 0);
  let occurrences: Occurrences | null = null;
  let fullMatches = false;
  const uncounted = terms.some((t) => Number.isNaN(t.df));
  if (!mediaIds && terms.length > 1 && fullMatchRows !== Infinity && (known > fullMatchRows || uncounted)) {
    fullMatches = (occurrences = readFullMatches(state, terms, scope, want)) !== null;
  }
  if (!mediaIds && !occurrences && known <= postingsBudget) {
    occurrences = state.postings(terms, postingsBudget, (i, df) =>
      state.wordCounts.set(terms[i].expr, (terms[i].df = df), true),
    );
  }
  return { occurrences, fullMatches };
}

const rowsOf = (state: TextSearchState, ids: number[]): DocRow[] =>
  ids.length ? (state.sql.docsById.all(JSON.stringify(ids)) as DocRow[]) : [];

/** The best rows of the occurrences read. */
function docsOfOccurrences(
  state: TextSearchState,
  occurrences: Occurrences,
  fullMatches: boolean,
  terms: Term[],
  scope: string | null,
  score: Score,
  want: number,
): DocRow[] {
  state.tuning.onPath?.(fullMatches ? 'fullMatches' : 'occurrences');
  return rowsOf(state, bestRows(state, occurrences, terms, fullMatches ? null : scope, score, want));
}

/** Candidate rows from FTS5, or (a short list of items with few rows) every row of the items listed. */
function candidateDocs(
  state: TextSearchState,
  terms: Term[],
  scope: string | null,
  mediaIds: string[] | null,
  collectionIds: string[],
  want: number,
): DocRow[] {
  const { tuning, sql } = state;
  if (!mediaIds) {
    tuning.onPath?.('candidates');
    return rowsOf(state, candidates(state, terms, scope, null, want));
  }
  if (mediaIds.length <= tuning.joinIds) {
    const all = sql.docsOfMedia.all(
      JSON.stringify(mediaIds),
      JSON.stringify(collectionIds),
      DIRECT_ROWS + 1,
    ) as DocRow[];
    const scanned = terms.reduce((sum, t) => sum + t.df, 0);
    const direct = all.length <= DIRECT_ROWS && all.length * tuning.directCost <= scanned;
    tuning.onPath?.(direct ? 'items' : 'candidates');
    return direct ? all : rowsOf(state, candidates(state, terms, scope, mediaIds, want));
  }
  // A long list: FTS5's candidates, the other items' rows dropped, deeper until enough are left.
  tuning.onPath?.('candidates');
  const allowed = new Set(mediaIds);
  let docs: DocRow[];
  for (let k = want * 2; ; k *= 4) {
    const ids = candidates(state, terms, scope, null, Math.min(k, MAX_CANDIDATES));
    docs = rowsOf(state, ids).filter((d) => allowed.has(d.media_id));
    if (docs.length >= want || ids.length < Math.min(k, MAX_CANDIDATES) || k >= MAX_CANDIDATES) return docs;
  }
}
