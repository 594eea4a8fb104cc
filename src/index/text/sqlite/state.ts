import type { PostingsReader } from './postings.js';
import type { TextIndexStatements } from './schema.js';
import type { Stemmer } from './stemmer.js';
import type { WordCounts } from './wordCounts.js';
import type { Tuning } from './tuning.js';

/** What one SQLite text index keeps between searches; every search step is a function over it. */
export interface TextSearchState {
  /** Cuts text into index terms as FTS5 does (query words, text read back). */
  stemmer: Stemmer;
  tuning: Tuning;
  sql: TextIndexStatements;
  /** Reads the index's own occurrences of the query words (postings.ts). */
  postings: PostingsReader;
  /** Each word's row count, cached a while (terms.ts). */
  wordCounts: WordCounts;
}
