/**
 * The thresholds that choose how a search finds its candidate rows (see
 * textIndex.ts for the paths), with the overrides tests use. The numbers were
 * chosen on a large synthetic library: docs/measurements/text-index.md.
 */

/** Rows FTS5 may rank by bm25 per query (ranking costs FTS5 a size look-up per row matched). */
export const RANKED_MATCHES = 5_000;
/**
 * Occurrences of the query words in the index up to which all are read. The other way reads text back: about
 * four scattered page reads per candidate row, which over a library bigger than the OS cache cost more.
 */
export const POSTINGS_BUDGET = 50_000;
/**
 * Words matching more rows than this in all (as cached; or never counted) are first matched all together
 * (see readFullMatches): two common words match many rows each, few of which hold both.
 */
export const FULL_MATCH_ROWS = 5_000;
/** Rows holding every word up to which only theirs are read (beyond, reading every occurrence is as cheap). */
export const FULL_MATCH_CAP = 5_000;
/** Candidate rows read in step 1: the limit, plus as many again (at most 100 more) for the re-ranking, at least MIN_CANDIDATES. */
export const MIN_CANDIDATES = 40;
export const MAX_CANDIDATES = 20_000;
/**
 * Items given by id (mediaIds): up to JOIN_IDS of them, FTS5 is joined with the list, or, when they have at
 * most DIRECT_ROWS rows and reading those (about DIRECT_COST times dearer per row than FTS5 scanning a match)
 * costs less than what their words match, all their rows are matched here directly. A longer list is not
 * handed to SQLite at all (parsing it would cost more than the search): rows of other items are dropped
 * here, reading deeper until enough are left (at most MAX_CANDIDATES rows).
 */
export const JOIN_IDS = 3_000;
export const DIRECT_ROWS = 3_000;
export const DIRECT_COST = 10;
/** How long each word's row count stays cached. */
export const STATS_TTL_MS = 60_000;

/**
 * How a search found its candidate rows: the occurrences of the rows holding every word, every occurrence of
 * the words, FTS5's candidates (text read back), or the rows of the items listed.
 */
export type TextSearchPath = 'fullMatches' | 'occurrences' | 'candidates' | 'items';

/** Overrides of the thresholds above (tests, profiling). */
export interface TextIndexTuning {
  /** Overrides RANKED_MATCHES (tests). */
  rankedMatches?: number;
  /** Overrides POSTINGS_BUDGET (tests: 0 always reads text back, Infinity always reads the index's occurrences). */
  postingsBudget?: number;
  /** Overrides DIRECT_COST (tests: 0 always matches short lists of items directly). */
  directCost?: number;
  /** Overrides JOIN_IDS (tests). */
  joinIds?: number;
  /** Overrides FULL_MATCH_ROWS (tests: 0 always tries the full matches first, Infinity never). */
  fullMatchRows?: number;
  /** Overrides MIN_CANDIDATES (tests). */
  minCandidates?: number;
  /** Told which way each search found its candidate rows (tests, profiling). */
  onPath?: (path: TextSearchPath) => void;
}

/** The thresholds in force: each override, else its default. */
export type Tuning = Required<Omit<TextIndexTuning, 'onPath'>> & Pick<TextIndexTuning, 'onPath'>;

export const resolveTuning = (options: TextIndexTuning): Tuning => ({
  rankedMatches: options.rankedMatches ?? RANKED_MATCHES,
  postingsBudget: options.postingsBudget ?? POSTINGS_BUDGET,
  directCost: options.directCost ?? DIRECT_COST,
  joinIds: options.joinIds ?? JOIN_IDS,
  fullMatchRows: options.fullMatchRows ?? FULL_MATCH_ROWS,
  minCandidates: options.minCandidates ?? MIN_CANDIDATES,
  onPath: options.onPath,
});
