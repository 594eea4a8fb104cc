import type { TextIndex } from '../textIndex.js';
import { sqlitePostings } from './postings.js';
import { prepareStatements } from './schema.js';
import { searchText } from './search.js';
import type { Db } from './db.js';
import { Stemmer } from './stemmer.js';
import { WordCounts } from './wordCounts.js';
import { resolveTuning, type TextIndexTuning } from './tuning.js';

export type { TextSearchPath } from './tuning.js';

/**
 * The FTS5 text index (schema.ts): table `text_index`, one row per live
 * caption, OCR text object, item (name and description) and tag value;
 * `text_index_docs` maps each rowid to its kind, item and frame. The stores
 * keep both in step through the writer (writer.ts).
 *
 * A search (the user's words are always quoted: no FTS5 syntax ever comes from
 * the user), when the query words occur at most POSTINGS_BUDGET times in the
 * index in all (and no item list is given):
 *  1. every occurrence of every query word is read from the index itself
 *     (postings.ts): each matching row's term frequencies and fields.
 *     Rows are ranked by the score of step 3 computed for the row alone
 *     (words matched, then bm25, then newest): full matches first, exactly.
 *     Rows outside the asked collections are dropped (one FTS5 query).
 *  2. the best rows are grouped into frames and items as below; what the
 *     other rows of those frames and items hold is looked up in what step 1
 *     read (their rowids come from text_index_docs' media index): no text is
 *     read back (units.ts analyseOccurrences).
 *  3. scores as below.
 * Otherwise (common words, or mediaIds):
 *  1. candidates (candidates.ts): first the rows holding every query word
 *     (full matches, all about as good under step 3's scores: streamed newest
 *     first, FTS5 stops at the limit; for a one-word query that is all); then
 *     rows holding some of the words, ranked by FTS5's bm25 over the rarer
 *     words only: ranking costs FTS5 per row matched, so words found in more
 *     than RANKED_MATCHES rows in all (counted once and cached, terms.ts) are
 *     left out of it (a very common word says little: its idf is near 0);
 *     then rows with any word, newest first.
 *  2. rows are grouped into frames (captions, OCR) and items (name,
 *     description, tags); for those and for the items of the frames, the text
 *     is read back from the source tables and cut into index terms by the same
 *     tokenizer (Stemmer): which query words matched, how often, in which
 *     fields (units.ts analyseText). Exact, and cheaper than asking FTS5 per word.
 *  3. scores (ranking.ts): BM25 computed here (idf from the index's own
 *     counts, term frequency saturated with k1 = 1.2, no length normalisation:
 *     texts are short), turned into 0..1 by textRank (../textRank.ts). A frame
 *     hit also counts what its item's own text matched ("beach sunset" is a
 *     full match for the frame captioned "sunset" of "beach.jpg"); items
 *     matched by their own text are hits of their own (frameId null).
 * The thresholds between the paths: tuning.ts.
 */
export interface SqliteTextIndexOptions extends TextIndexTuning {
  /** A shared stemmer (its cache); one of its own by default. */
  stemmer?: Stemmer;
}

export function sqliteTextIndex(db: Db, options: SqliteTextIndexOptions = {}): TextIndex {
  const state = {
    stemmer: options.stemmer ?? new Stemmer(),
    tuning: resolveTuning(options),
    sql: prepareStatements(db),
    postings: sqlitePostings(db),
    wordCounts: new WordCounts(),
  };
  return { search: async (query) => searchText(state, query) };
}
