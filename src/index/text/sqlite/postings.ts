import type Database from 'better-sqlite3';
import { TEXT_FIELDS } from '../textIndex.js';
import type { Db } from './db.js';

/**
 * What the FTS5 index itself holds of the query words, row by row, read from
 * an fts5vocab 'instance' table over `text_index` (one row per occurrence of
 * a term: term, rowid, column): the exact term frequencies and fields of
 * every index row holding a query word, without reading any text back from
 * the source tables and without FTS5's bm25() (which looks up each row's
 * size). Reading costs per occurrence (the packing below keeps strings out of
 * JavaScript), so it is used only when the query words are rare enough (the
 * caller's budget). Costs: docs/measurements/text-index.md.
 *
 * The vocab table lives in the connection's temp schema: nothing is stored,
 * no migration, and it works on read-only connections.
 */

/** A query word as the index holds it (see terms.ts Term). */
export interface PostingTerm {
  /** Index terms of the word and its other forms. */
  exact: Set<string>;
  /** Index-term prefix when words it begins count too (half), else null. */
  prefix: string | null;
}

/** Column number in the packed value: TEXT_FIELDS order; the `scope` column (never a user word) and anything else is SKIP. */
const SKIP = 7;
const COLUMN_CODE = `(CASE col ${TEXT_FIELDS.map((f, i) => `WHEN '${f}' THEN ${i}`).join(' ')} ELSE ${SKIP} END)`;
/** The greatest code point: `term < prefix || MAX_CHAR` bounds the terms that begin with prefix. */
const MAX_CHAR = '\u{10FFFF}';

/**
 * Every index row holding a query word, and per word the number of rows
 * holding it (its df, exact). Flat arrays, one slot per row, slots in rowid
 * order (a few thousand small objects, or a Map entry per row, cost more
 * than the reading).
 */
export interface Occurrences {
  /** slot → rowid, ascending. */
  ids: Float64Array;
  /** The slot of a rowid, -1 when it holds no query word. */
  slotOf(rowid: number): number;
  /** Query words: slot s, word i at s × words + i. */
  words: number;
  /** Occurrences of the word or its forms; of other words it begins (prefix only). */
  tf: Uint32Array;
  prefixTf: Uint32Array;
  /** Per slot, bit i set: TEXT_FIELDS[i] holds a query word. */
  fields: Uint8Array;
  df: number[];
}

/**
 * Reads the occurrences of these words, at most `budget` in all: null when
 * there are more (what was read is dropped; `counted` still gets the df of
 * each word read whole, for the caller's cache). With `within`, only those
 * rows' occurrences (FTS5 still walks every occurrence of the words, but in
 * C, at about half the cost of reading each into JavaScript);
 * `df` then counts those rows only and `counted` is not called.
 */
export type PostingsReader = (
  terms: PostingTerm[],
  budget: number,
  counted?: ((term: number, df: number) => void) | null,
  within?: ArrayLike<number> | null,
) => Occurrences | null;

export function sqlitePostings(db: Db): PostingsReader {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.text_index_terms USING fts5vocab(main, text_index, instance)`);
  // One number per occurrence (rowid·8 + column), or (rowid·8 + column)·2 + 1 when the term is an exact form:
  // numbers cross into JavaScript several times cheaper than the term and column strings.
  // Each twice: over every row, and over the rows of a JSON list (the last parameter).
  const [exactly, exactlyIn] = [``, ` AND doc IN (SELECT value FROM json_each(?))`].map((only) =>
    db.prepare(`SELECT doc * 8 + ${COLUMN_CODE} FROM temp.text_index_terms WHERE term = ?${only} LIMIT ?`).pluck(),
  );
  const [beginning, beginningIn] = [``, ` AND doc IN (SELECT value FROM json_each(?))`].map((only) =>
    db
      .prepare(
        `SELECT (doc * 8 + ${COLUMN_CODE}) * 2 + (term IN (SELECT value FROM json_each(?)))
         FROM temp.text_index_terms WHERE term >= ? AND term < ?${only} LIMIT ?`,
      )
      .pluck(),
  );

  return (terms, budget, counted, within) => {
    const statements = within
      ? { exact: exactlyIn, begin: beginningIn, only: [JSON.stringify(Array.from(within))] }
      : { exact: exactly, begin: beginning, only: [] };
    if (within) counted = null;
    // Read first (within the budget), then count into arrays sized by what was read.
    const read = readWithinBudget(terms, budget, statements);
    if (!read) return null;
    const found = countOccurrences(packOccurrences(read, terms.length), terms.length);
    found.df.forEach((d, i) => counted?.(i, d));
    return found;
  };
}

/** One word's occurrences as read: packed numbers, exact (true), or with the exact bit in each number (null). */
type ReadPostings = Array<{ word: number; packed: number[]; exact: boolean | null }>;

/** Each word's occurrences, its prefix's first; null as soon as there are more than `budget` in all. */
function readWithinBudget(
  terms: PostingTerm[],
  budget: number,
  { exact, begin, only }: { exact: Database.Statement; begin: Database.Statement; only: string[] },
): ReadPostings | null {
  let left = budget;
  const limit = () => Math.min(left + 1, Number.MAX_SAFE_INTEGER);
  const read: ReadPostings = [];
  const take = (word: number, packed: number[], exact: boolean | null) => {
    read.push({ word, packed, exact });
    return (left -= packed.length) >= 0;
  };
  for (const [i, t] of terms.entries()) {
    const { prefix } = t;
    if (
      prefix !== null &&
      !take(i, begin.all(JSON.stringify([...t.exact]), prefix, prefix + MAX_CHAR, ...only, limit()) as number[], null)
    )
      return null;
    for (const term of t.exact) {
      if (prefix !== null && term.startsWith(prefix)) continue; // read above
      if (!take(i, exact.all(term, ...only, limit()) as number[], true)) return null;
    }
  }
  return read;
}

/**
 * Every occurrence as one number, (((rowid·8 + column)·words + word)·2 + exact), sorted: rows come out in
 * rowid order, each row's occurrences together (a typed-array sort is several times cheaper than a Map
 * entry per occurrence). Occurrences in no user column (SKIP) are dropped.
 */
function packOccurrences(read: ReadPostings, words: number): Float64Array {
  const all = new Float64Array(read.reduce((n, r) => n + r.packed.length, 0));
  let n = 0;
  for (const { word, packed, exact } of read) {
    for (const p of packed) {
      const isExact = exact ?? p % 2 === 1;
      const value = exact === null ? Math.floor(p / 2) : p;
      if (value % 8 === SKIP) continue;
      all[n++] = (value * words + word) * 2 + (isExact ? 1 : 0);
    }
  }
  return all.subarray(0, n).sort();
}

/** The sorted occurrences counted row by row into flat arrays (see Occurrences). */
function countOccurrences(sorted: Float64Array, words: number): Occurrences {
  const n = sorted.length;
  // Sized for one row an occurrence (at most), trimmed to the rows found.
  const ids = new Float64Array(n);
  const tf = new Uint32Array(n * words);
  const prefixTf = new Uint32Array(n * words);
  const fields = new Uint8Array(n);
  const df = new Array<number>(words).fill(0);
  let slot = -1;
  for (let j = 0; j < n; j++) {
    const x = sorted[j];
    const isExact = x % 2 === 1;
    const rest = (x - (isExact ? 1 : 0)) / 2;
    const word = rest % words;
    const value = (rest - word) / words;
    const column = value % 8;
    const rowid = (value - column) / 8;
    if (slot < 0 || ids[slot] !== rowid) ids[++slot] = rowid;
    const at = slot * words + word;
    if (tf[at] === 0 && prefixTf[at] === 0) df[word] += 1;
    if (isExact) tf[at] += 1;
    else prefixTf[at] += 1;
    fields[slot] |= 1 << column;
  }
  const rows = slot + 1;
  const found = ids.subarray(0, rows);
  return {
    ids: found,
    slotOf: (rowid) => slotIn(found, rowid),
    words,
    tf: tf.subarray(0, rows * words),
    prefixTf: prefixTf.subarray(0, rows * words),
    fields: fields.subarray(0, rows),
    df,
  };
}

/** Binary search of a rowid among ascending ids: its index, or -1. */
function slotIn(ids: Float64Array, rowid: number): number {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid];
    if (v === rowid) return mid;
    if (v < rowid) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
