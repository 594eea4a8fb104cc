/**
 * Text matching for search: stemmed full-text search over what is written on
 * or about a frame (captions, OCR text) and an item (file name, description,
 * tag values). The SQLite implementation (src/storage/sqlite/textIndex.ts) is
 * an FTS5 index kept in step with the data by triggers
 * (migrations/005_text_index.sql); this module holds what does not depend on
 * the engine: the query and result shapes, how free user text becomes search
 * terms, and the score normalisation (`textRank`) used to combine text
 * matches with vector similarity.
 */

/** Where a match was found. */
export type TextField = 'caption' | 'ocr' | 'name' | 'description' | 'tag';
export const TEXT_FIELDS: readonly TextField[] = ['caption', 'ocr', 'name', 'description', 'tag'];

export interface TextSearchQuery {
  /** Free user text; any characters (quotes, operators, emoji) are safe. */
  query: string;
  /** Collections to search (the ones the caller may read). Empty: no results. */
  datasetIds: string[];
  /** Restricts to these items (e.g. what the browse filters let through); null or absent: no restriction. */
  mediaIds?: string[] | null;
  /** Most results returned. */
  limit: number;
  /**
   * Lets the last word match as a prefix too ("beac" finds "beach"), for
   * search-as-you-type; a prefix-only match counts half a term. Default true.
   */
  prefix?: boolean;
}

export interface TextHit {
  mediaId: string;
  /**
   * The frame whose captions or OCR text matched; its hit also counts what its
   * item's own text (name, description, tags) matched. null: a hit of the
   * item's own text, which stands for all its frames (an item may have both
   * kinds of hit).
   */
  frameId: string | null;
  datasetId: string;
  /** 0..1, see textRank. */
  score: number;
  /**
   * BM25 of the hit, higher is better (unlike SQLite's bm25(), which is
   * negated): Σ over matched words of idf × tf·(k1 + 1)/(tf + k1), k1 = 1.2,
   * idf = ln(1 + (N − n + 0.5)/(n + 0.5)) with N rows in the index and n rows
   * holding the word; a word matched only as a prefix counts half. No length
   * normalisation: captions, OCR lines, names and tags are all short.
   */
  bm25: number;
  /** Query terms matched (a prefix-only match counts 0.5) and the number of terms. */
  termsMatched: number;
  termsTotal: number;
  matchedFields: TextField[];
}

export interface TextIndex {
  /** Best first (score, then bm25); at most `limit` hits. */
  search(query: TextSearchQuery): Promise<TextHit[]>;
  /**
   * Reads what searches look up row by row (the index's row map, its words'
   * lists) into memory ahead of them, where that pays (a big library); the
   * rows read. Searches are answered meanwhile.
   */
  warm?(): Promise<{ rows: number }>;
}

// ---------------------------------------------------------------- query terms

/** One word of the query and the forms of it that also count. */
export interface QueryTerm {
  /** The word as typed, lowercased. */
  text: string;
  /** `text` first, then inflected forms the Porter stemmer does not join to it (bus ↔ buses, knife ↔ knives). */
  forms: string[];
  /** Also match words starting with `text` (the last word of a query still being typed). */
  prefix: boolean;
}

/** Most terms a query keeps (longer queries are cut: each term costs a lookup). */
export const MAX_QUERY_TERMS = 12;
const MAX_TERM_LENGTH = 64;
const MIN_PREFIX_LENGTH = 3;

/**
 * Words so common they say nothing about a picture; dropped from a query
 * unless nothing else is left ("the who" still searches).
 */
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by for from has have he her his i if in into is it its me my no not of on or our ' +
    'she so than that the their them then there these they this those to too us was we were what when where which ' +
    'while who whom why will with you your'
  ).split(' '),
);

/**
 * Word characters exactly as SQLite's unicode61 tokenizer sees them (its
 * default categories L*, N*, Co); everything else separates words. Tokens
 * built from these can be quoted safely: they hold no quote or operator.
 */
export const WORD_PATTERN = /[\p{L}\p{N}\p{Co}]+/gu;

/**
 * English irregular plurals, both ways (Porter stems each form differently).
 */
const IRREGULAR = new Map<string, string>(
  Object.entries({
    child: 'children',
    man: 'men',
    woman: 'women',
    person: 'people',
    mouse: 'mice',
    goose: 'geese',
    foot: 'feet',
    tooth: 'teeth',
    ox: 'oxen',
    die: 'dice',
    cactus: 'cacti',
    fungus: 'fungi',
  }).flatMap(([singular, plural]) => [
    [singular, plural],
    [plural, singular],
  ]),
);

/**
 * Other inflected forms of a word that Porter stemming alone would not match:
 * Porter stems "bus" to "bu" but "buses" to "buse", "knife" to "knif" but
 * "knives" to "knive". Forms that stem the same as the word are harmless (the
 * implementation drops duplicates by stem).
 */
export function inflections(word: string): string[] {
  const out = new Set<string>([word]);
  const irregular = IRREGULAR.get(word);
  if (irregular) out.add(irregular);
  if (word.length >= 4 && /^\p{Ll}+$/u.test(word)) {
    if (word.endsWith('ves')) {
      // plural → singular
      out.add(`${word.slice(0, -3)}f`);
      out.add(`${word.slice(0, -3)}fe`);
    } else if (/(s|x|z|ch|sh)es$/.test(word)) {
      out.add(word.slice(0, -2));
    } else if (/(s|x|z|ch|sh)$/.test(word) && !word.endsWith('ss')) {
      // singular → plural
      out.add(`${word}es`);
    }
    if (word.endsWith('fe')) out.add(`${word.slice(0, -2)}ves`);
    else if (word.endsWith('f') && !word.endsWith('ff')) out.add(`${word.slice(0, -1)}ves`);
  } else if (word.length === 3 && /^\p{Ll}+s$/u.test(word)) {
    out.add(`${word}es`); // bus → buses, gas → gases
  }
  return [...out];
}

/**
 * Turns free user text into search terms: words as the index tokenizer cuts
 * them, lowercased, deduplicated, stopwords and single letters dropped (unless
 * nothing else is left), at most MAX_QUERY_TERMS. The last word may match as a
 * prefix when the text does not end with a separator (the user may still be
 * typing it). Never throws; returns [] when there is no word at all.
 */
export function parseQuery(text: string, opts: { prefix?: boolean } = {}): QueryTerm[] {
  const normalised = text.normalize('NFC');
  const words = (normalised.match(WORD_PATTERN) ?? [])
    .map((w) => w.toLowerCase())
    .filter((w) => w.length <= MAX_TERM_LENGTH);
  const unique = [...new Set(words)];
  const strong = unique.filter((w) => !STOPWORDS.has(w) && !/^\p{L}$/u.test(w));
  const kept = (strong.length ? strong : unique).slice(0, MAX_QUERY_TERMS);
  const endsInWord = /[\p{L}\p{N}\p{Co}]$/u.test(normalised);
  const last = words[words.length - 1];
  return kept.map((w) => ({
    text: w,
    forms: inflections(w),
    prefix: (opts.prefix ?? true) && endsInWord && w === last && [...w].length >= MIN_PREFIX_LENGTH,
  }));
}

// ---------------------------------------------------------------- score

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
