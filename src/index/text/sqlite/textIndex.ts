import type Database from 'better-sqlite3';
import {
  parseQuery,
  textRank,
  TEXT_FIELDS,
  type QueryTerm,
  type TextField,
  type TextHit,
  type TextIndex,
  type TextSearchQuery,
} from '../textIndex.js';
import type { Db } from './db.js';
import { Stemmer } from './stemmer.js';
import { sqlitePostings, type Occurrences } from './postings.js';

/**
 * The FTS5 text index (migrations/005_text_index.sql): table `text_index`
 * (columns caption, ocr, name, description, tag, scope), one row per live
 * caption, OCR text object, item (name and description) and tag value;
 * `text_index_docs` maps each rowid to its kind, item, frame and collection.
 * Triggers keep both in step with the data.
 *
 * A search (the user's words are always quoted: no FTS5 syntax ever comes from
 * the user), when the query words occur at most POSTINGS_BUDGET times in the
 * index in all (and no item list is given):
 *  1. every occurrence of every query word is read from the index itself
 *     (textPostings.ts): each matching row's term frequencies and fields.
 *     Rows are ranked by the score of step 3 computed for the row alone
 *     (words matched, then bm25, then newest): full matches first, exactly.
 *     Rows outside the asked collections are dropped (one FTS5 query).
 *  2. the best rows are grouped into frames and items as below; what the
 *     other rows of those frames and items hold is looked up in what step 1
 *     read (their rowids come from text_index_docs' media index): no text is
 *     read back.
 *  3. scores as below.
 * Otherwise (common words, or mediaIds):
 *  1. candidates: first the rows holding every query word (full matches, all
 *     about as good under step 3's scores: streamed newest first, FTS5 stops
 *     at the limit; for a one-word query that is all); then
 *     rows holding some of the words, ranked by FTS5's bm25 over the rarer
 *     words only: ranking costs about a microsecond per row matched, so words
 *     found in more than RANKED_MATCHES rows in all (counted once and cached)
 *     are left out of it (a very common word says little: its idf is near 0);
 *     then rows with any word, newest first.
 *  2. rows are grouped into frames (captions, OCR) and items (name,
 *     description, tags); for those and for the items of the frames, the text
 *     is read back from the source tables and cut into index terms by the same
 *     tokenizer (Stemmer): which query words matched, how often, in which
 *     fields. Exact, and cheaper than asking FTS5 per word.
 *  3. scores: BM25 computed here (idf from the index's own counts, term
 *     frequency saturated with k1 = 1.2, no length normalisation: texts are
 *     short), turned into 0..1 by textRank (src/search/textIndex.ts). A frame
 *     hit also counts what its item's own text matched ("beach sunset" is a
 *     full match for the frame captioned "sunset" of "beach.jpg"); items
 *     matched by their own text are hits of their own (frameId null).
 */

const WORD_COLUMNS = '{caption ocr name description tag}';
/** FTS5 bm25 weights: caption, ocr, name, description, tag, scope (never scores). */
const FTS_BM25 = 'bm25(text_index, 1, 1, 1, 1, 1, 0)';
/** Rows FTS5 may rank by bm25 per query (about 1 µs each). */
export const RANKED_MATCHES = 5_000;
/**
 * Occurrences of the query words in the index up to which all are read (about 0.3 µs each when cached, ~1 µs
 * from disk). The other way reads text back: about four scattered page reads per candidate row, which over a
 * library bigger than the OS cache cost more (1M frames, two words of ~13k rows each: 31 vs 47 ms p50 here).
 */
export const POSTINGS_BUDGET = 50_000;
/**
 * Words matching more rows than this in all (as cached; or never counted) are first matched all together
 * (see readFullMatches): at 1M frames two bench words are ~26k rows, ~160 of which hold both.
 */
const FULL_MATCH_ROWS = 5_000;
/** Rows holding every word up to which only theirs are read (beyond, reading every occurrence is as cheap). */
const FULL_MATCH_CAP = 5_000;
/** Candidate rows read in step 1: the limit, plus as many again (at most 100 more) for the re-ranking, at least MIN_CANDIDATES. */
const MIN_CANDIDATES = 40;
const MAX_CANDIDATES = 20_000;
/**
 * Items given by id (mediaIds): up to JOIN_IDS of them, FTS5 is joined with the list, or, when they have at
 * most DIRECT_ROWS rows and reading those (about DIRECT_COST times dearer per row than FTS5 scanning a match)
 * costs less than what their words match, all their rows are matched here directly. A longer list is not
 * handed to SQLite at all (parsing it would cost more than the search): rows of other items are dropped
 * here, reading deeper until enough are left (at most MAX_CANDIDATES rows).
 */
const JOIN_IDS = 3_000;
const DIRECT_ROWS = 3_000;
const DIRECT_COST = 10;
/** How long each word's row count stays cached. */
const STATS_TTL_MS = 60_000;
const K1 = 1.2;
/** Above any bm25 of a query (at most 12 words × idf ≤ ln(1 + 2·rows) × (k1 + 1): under 600 up to 10⁹ rows). */
const RANK_SPAN = 1024;

/** The token naming a collection in the `scope` column (the trailing digit keeps the stemmer off it). */
export const scopeToken = (datasetId: string): string => `ds${datasetId.replace(/-/g, '').toLowerCase()}0`;

const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;
/** A query word as the index sees it. */
interface Term {
  /** Index terms of the word and its other forms (bus, buses: "bu", "buse"). */
  exact: Set<string>;
  /** Index-term prefix when the word may also match as a prefix. */
  prefix: string | null;
  /** FTS5 expression matching any of them. */
  expr: string;
  /** Rows holding it (estimated above RANKED_MATCHES). */
  df: number;
}

/** bm25 and words matched (a prefix-only match counts half) of these term frequencies (see TextHit). */
type Score = (tf: ArrayLike<number>, prefixTf: ArrayLike<number>, at?: number) => { bm25: number; matched: number };

interface DocRow {
  id: number;
  kind: 'caption' | 'ocr' | 'item' | 'tag';
  media_id: string;
  frame_id: string | null;
}

/** A frame (its caption and OCR rows) or an item (its own row and its tags'). */
interface Unit {
  mediaId: string;
  frameId: string | null;
  datasetId: string;
  fields: Set<TextField>;
  /** Per query word: occurrences of the word or its forms; of words it begins (prefix only). */
  tf: number[];
  prefixTf: number[];
}

export interface SqliteTextIndexOptions {
  /** A shared stemmer (its cache); one of its own by default. */
  stemmer?: Stemmer;
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

/**
 * How a search found its candidate rows: the occurrences of the rows holding every word, every occurrence of
 * the words, FTS5's candidates (text read back), or the rows of the items listed.
 */
export type TextSearchPath = 'fullMatches' | 'occurrences' | 'candidates' | 'items';

export function sqliteTextIndex(db: Db, options: SqliteTextIndexOptions = {}): TextIndex {
  const stemmer = options.stemmer ?? new Stemmer();
  const rankedMatches = options.rankedMatches ?? RANKED_MATCHES;
  const postingsBudget = options.postingsBudget ?? POSTINGS_BUDGET;
  const postings = sqlitePostings(db);
  const directCost = options.directCost ?? DIRECT_COST;
  const joinIds = options.joinIds ?? JOIN_IDS;
  const fullMatchRows = options.fullMatchRows ?? FULL_MATCH_ROWS;
  const minCandidates = options.minCandidates ?? MIN_CANDIDATES;
  const json = (v: unknown[]) => JSON.stringify(v);
  const statements = new Map<string, Database.Statement>();
  const prepared = (sql: string) => {
    let st = statements.get(sql);
    if (!st) statements.set(sql, (st = db.prepare(sql)));
    return st;
  };

  const rowCountStmt = db.prepare(`SELECT rows FROM text_index_rows WHERE id = 1`).pluck();
  // Two subqueries: SQLite reads min() or max() from the end of the rowid b-tree only when it is the query's one
  // aggregate (together they scan the whole table: 200 ms at 2M rows).
  const rowidSpan = db.prepare(
    `SELECT (SELECT min(id) FROM text_index_docs) AS lo, (SELECT max(id) FROM text_index_docs) AS hi`,
  );
  const dfCount = db.prepare(
    `SELECT count(*) AS n, min(rowid) AS low FROM (SELECT rowid FROM text_index WHERE text_index MATCH ? ORDER BY rowid DESC LIMIT ?)`,
  );
  const otherCollections = db
    .prepare(`SELECT EXISTS (SELECT 1 FROM collections WHERE id NOT IN (SELECT value FROM json_each(?)))`)
    .pluck();
  const docsById = db.prepare(
    `SELECT id, kind, media_id, frame_id FROM text_index_docs WHERE id IN (SELECT value FROM json_each(?))`,
  );
  const docsOfMedia = db.prepare(
    `SELECT d.id, d.kind, d.media_id, d.frame_id FROM text_index_docs d JOIN media m ON m.id = d.media_id
     WHERE d.media_id IN (SELECT value FROM json_each(?)) AND m.dataset_id IN (SELECT value FROM json_each(?)) LIMIT ?`,
  );
  // The text of indexed frames and items, read back: a frame's caption and OCR rows through the index's own
  // rows (so the item's other objects are not read), an item's name and description from media (its dataset
  // too), its tags from media_tags (which holds live items' tags only).
  const frameText = db.prepare(
    `SELECT d.frame_id AS id, d.kind, coalesce(c.text, o.label) AS text
     FROM json_each(?) j
     JOIN text_index_docs d ON d.media_id = j.value ->> 0 AND d.frame_id = j.value ->> 1
     LEFT JOIN captions c ON d.kind = 'caption' AND c.id = d.source
     LEFT JOIN detected_objects o ON d.kind = 'ocr' AND o.id = d.source`,
  );
  const itemText = db.prepare(
    `SELECT id, dataset_id, name, description FROM media WHERE id IN (SELECT value FROM json_each(?))`,
  );
  const tagText = db.prepare(
    `SELECT media_id AS id, value AS text FROM media_tags WHERE media_id IN (SELECT value FROM json_each(?))`,
  );
  // With the index's occurrences in hand: which rows match at all (collection filter), and the rowids of
  // frames and of items' own text (from text_index_docs' media index alone), the items' collections.
  const matchingRows = db.prepare(`SELECT rowid FROM text_index WHERE text_index MATCH ?`).pluck();
  const firstMatches = db.prepare(`SELECT rowid FROM text_index WHERE text_index MATCH ? LIMIT ?`).pluck();
  const matchCount = db.prepare(`SELECT count(*) FROM text_index WHERE text_index MATCH ?`).pluck();
  const unitRows = db.prepare(
    `SELECT d.id, d.media_id, d.frame_id FROM json_each(?) j JOIN text_index_docs d ON d.media_id = j.value ->> 0 AND d.frame_id IS j.value ->> 1`,
  );
  const itemDatasets = db.prepare(`SELECT id, dataset_id FROM media WHERE id IN (SELECT value FROM json_each(?))`);

  // Rows in the index, for idf: kept by triggers (migrations/008_text_index_rows.sql), one row read.
  function rowCount(): number {
    return rowCountStmt.get() as number;
  }

  const dfCache = new Map<string, { df: number; exact: boolean; at: number }>();
  /** A word's cached row count (exact or estimated); with `exact`, only a counted one. */
  const cachedDf = (expr: string, exact = false): number | null => {
    const cached = dfCache.get(expr);
    return cached && Date.now() - cached.at < STATS_TTL_MS && (cached.exact || !exact) ? cached.df : null;
  };
  const cacheDf = (expr: string, df: number, exact: boolean) => {
    if (dfCache.size > 10_000) dfCache.clear();
    dfCache.set(expr, { df, exact, at: Date.now() });
  };
  /** Rows matching an expression: counted up to RANKED_MATCHES, estimated above from how dense the newest matches are. */
  function documentFrequency(expr: string, rows: number): number {
    const cached = cachedDf(expr);
    if (cached !== null) return Math.min(cached, rows);
    const r = dfCount.get(`${WORD_COLUMNS} : ${expr}`, rankedMatches + 1) as { n: number; low: number | null };
    let df = r.n;
    if (r.n > rankedMatches && r.low !== null) {
      const span = rowidSpan.get() as { lo: number; hi: number };
      df = Math.round((r.n * (span.hi - span.lo + 1)) / Math.max(1, span.hi - r.low + 1));
    }
    cacheDf(expr, df, r.n <= rankedMatches);
    return Math.min(df, rows);
  }

  /** The query words as index terms; df as cached (NaN when not: search() fills it in). */
  function toTerms(words: QueryTerm[]): Term[] {
    const out: Term[] = [];
    for (const w of words) {
      const stems = stemmer.terms(w.forms);
      // The word must be one index term (a word the tokenizer drops or splits is skipped); other forms likewise.
      if (stems[0].length !== 1) continue;
      const exact = new Set<string>();
      const parts: string[] = [];
      const prefix = w.prefix ? stems[0][0] : null;
      w.forms.forEach((form, i) => {
        if (stems[i].length === 1 && !exact.has(stems[i][0])) {
          exact.add(stems[i][0]);
          // A form the prefix covers is left to it (FTS5 stems a prefix as a word: "beaches"* is beach*): an
          // OR of the word's own list with the prefix's costs FTS5 a merge of both (at 1M frames 3.9 vs 3.0 ms).
          if (prefix === null || !stems[i][0].startsWith(prefix)) parts.push(quote(form));
        }
      });
      if (prefix !== null) parts.push(`${quote(w.text)}*`);
      const expr = parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
      out.push({ exact, prefix, expr, df: cachedDf(expr) ?? NaN });
    }
    return out;
  }

  /** Rowids of candidate rows, best first, within the filter (an FTS5 scope clause and/or a join on media ids). */
  function candidates(terms: Term[], scope: string | null, mediaIds: string[] | null, want: number): number[] {
    const where = (words: string) => (scope ? `(${words}) AND (${scope})` : words);
    const from = mediaIds
      ? `text_index t JOIN text_index_docs d ON d.id = t.rowid WHERE text_index MATCH ? AND d.media_id IN (SELECT value FROM json_each(?))`
      : `text_index t WHERE text_index MATCH ?`;
    const args = (words: string) => (mediaIds ? [where(words), json(mediaIds)] : [where(words)]);
    const ids: number[] = [];
    const seen = new Set<number>();
    const take = (found: number[]) => {
      for (const id of found) if (!seen.has(id) && ids.length < want) (seen.add(id), ids.push(id));
    };
    const newest = prepared(`SELECT t.rowid FROM ${from} ORDER BY t.rowid DESC LIMIT ?`).pluck();
    // Rows with every word: full matches, all about as good (streamed newest first, stops at the limit).
    if (terms.length > 1)
      take(newest.all(...args(terms.map((t) => `(${WORD_COLUMNS} : ${t.expr})`).join(' AND ')), want) as number[]);
    if (ids.length >= want) return ids;
    // Rows with some words: the rarest words first, as many as FTS5 can rank by bm25 cheaply together.
    // (With one word every match is a full one, and scores differ only by repeats: no ranking needed.)
    const ranked: Term[] = [];
    let matches = 0;
    for (const t of terms.length > 1 ? [...terms].sort((a, b) => a.df - b.df) : []) {
      if (matches + t.df > rankedMatches) break;
      ranked.push(t);
      matches += t.df;
    }
    if (ranked.length) {
      const words = `${WORD_COLUMNS} : (${ranked.map((t) => t.expr).join(' OR ')})`;
      take(
        prepared(`SELECT t.rowid FROM ${from} ORDER BY ${FTS_BM25} LIMIT ?`)
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

  /** Counts the query words in one field's text of a unit. */
  function count(u: Unit, field: TextField, words: string[], terms: Term[]): void {
    const counts = stemmer.count(words);
    if (counts.size === 0) return;
    terms.forEach((t, i) => {
      let tf = 0;
      for (const s of t.exact) tf += counts.get(s) ?? 0;
      let prefixTf = 0;
      if (t.prefix !== null) for (const [s, n] of counts) if (s.startsWith(t.prefix) && !t.exact.has(s)) prefixTf += n;
      if (tf > 0 || prefixTf > 0) u.fields.add(field);
      u.tf[i] += tf;
      u.prefixTf[i] += prefixTf;
    });
  }

  /** Reads the text of these frames and items and counts the query words in it. */
  function analyse(frames: Map<string, Unit>, items: Map<string, Unit>, terms: Term[]): void {
    const texts: Array<[Unit, TextField, string[]]> = [];
    const add = (u: Unit, field: TextField, text: string | null) => {
      const words = Stemmer.words(text);
      if (words.length) texts.push([u, field, words]);
    };
    if (frames.size) {
      const pairs = json([...frames.values()].map((f) => [f.mediaId, f.frameId]));
      for (const r of frameText.all(pairs) as Array<{ id: string; kind: 'caption' | 'ocr'; text: string | null }>) {
        add(frames.get(r.id)!, r.kind, r.text);
      }
    }
    if (items.size) {
      const ids = json([...items.keys()]);
      for (const r of itemText.all(ids) as Array<{
        id: string;
        dataset_id: string;
        name: string;
        description: string | null;
      }>) {
        const u = items.get(r.id)!;
        u.datasetId = r.dataset_id;
        add(u, 'name', r.name);
        add(u, 'description', r.description);
      }
      for (const r of tagText.all(ids) as Array<{ id: string; text: string }>) add(items.get(r.id)!, 'tag', r.text);
    }
    stemmer.warm(texts.flatMap(([, , words]) => words));
    for (const [u, field, words] of texts) count(u, field, words, terms);
  }

  /**
   * The occurrences of the rows holding every query word (within the scope clause), when there are at least
   * `want` and at most FULL_MATCH_CAP of them and at most one word may match as a prefix: those rows are then
   * the best (every other row misses a word, a whole level below any of them, which miss at most half of
   * one), so no other row's occurrences are needed to rank. Fills in each word's exact df. Null otherwise.
   */
  function readFullMatches(terms: Term[], scope: string | null, want: number): Occurrences | null {
    if (terms.filter((t) => t.prefix !== null).length > 1) return null;
    const every = terms.map((t) => `(${WORD_COLUMNS} : ${t.expr})`).join(' AND ');
    const ids = firstMatches.all(scope ? `${every} AND (${scope})` : every, FULL_MATCH_CAP + 1) as number[];
    if (ids.length < want || ids.length > FULL_MATCH_CAP) return null;
    for (const t of terms) {
      let df = cachedDf(t.expr, true);
      if (df === null) cacheDf(t.expr, (df = matchCount.get(`${WORD_COLUMNS} : ${t.expr}`) as number), true);
      t.df = df;
    }
    return postings(terms, Infinity, null, ids);
  }

  /**
   * The best `want` rows of the index's occurrences (within the collections of the scope clause): by the
   * score of the row alone, then newest.
   */
  function bestRows(occ: Occurrences, terms: Term[], scope: string | null, score: Score, want: number): number[] {
    const inScope = scope
      ? new Set(
          matchingRows.all(`(${WORD_COLUMNS} : (${terms.map((t) => t.expr).join(' OR ')})) AND (${scope})`) as number[],
        )
      : null;
    // One number orders rows by words matched, then bm25 (always below RANK_SPAN): sorting objects with a
    // comparator costs about 1 µs a row, sorting these numbers a tenth of that.
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

  /**
   * What the rows of these frames and items hold of the query words, from the index's occurrences; the items'
   * collections. When the occurrences are those of some rows only (`terms`: the full matches), the other rows'
   * are read too.
   */
  function analyseRows(
    frames: Map<string, Unit>,
    items: Map<string, Unit>,
    occ: Occurrences,
    datasetIds: string[],
    terms: Term[] | null,
  ): void {
    // (mediaId, frameId) of each frame, (mediaId, null) of each item: one look-up each in the media index.
    const units = [...frames.values(), ...items.values()].map((u) => [u.mediaId, u.frameId]);
    const found = unitRows.all(json(units)) as Array<{ id: number; media_id: string; frame_id: string | null }>;
    const unread = terms ? found.filter((r) => occ.slotOf(r.id) < 0).map((r) => r.id) : [];
    const more = unread.length ? postings(terms!, Infinity, null, unread)! : null;
    for (const r of found) {
      const u = r.frame_id === null ? items.get(r.media_id)! : frames.get(r.frame_id)!;
      // The row's occurrences: in those read first, else in those just read for it (else it holds no query word).
      let o = occ;
      let slot = occ.slotOf(r.id);
      if (slot < 0 && more) slot = (o = more).slotOf(r.id);
      if (slot < 0) continue;
      for (let i = 0, at = slot * o.words; i < o.words; i++, at++)
        ((u.tf[i] += o.tf[at]), (u.prefixTf[i] += o.prefixTf[at]));
      TEXT_FIELDS.forEach((f, i) => o.fields[slot] & (1 << i) && u.fields.add(f));
    }
    if (items.size === 0) return;
    const ids = json([...items.keys()]);
    // One collection asked for: every row found is in it (the scope clause, or no other collection exists).
    if (datasetIds.length === 1) for (const u of items.values()) u.datasetId = datasetIds[0];
    else
      for (const r of itemDatasets.all(ids) as Array<{ id: string; dataset_id: string }>)
        items.get(r.id)!.datasetId = r.dataset_id;
  }

  function search(q: TextSearchQuery): TextHit[] {
    const limit = Math.floor(q.limit);
    const datasetIds = [...new Set(q.datasetIds)];
    const mediaIds = q.mediaIds ? [...new Set(q.mediaIds)] : null;
    if (!(limit > 0) || datasetIds.length === 0 || (mediaIds && mediaIds.length === 0)) return [];
    const words = parseQuery(q.query, { prefix: q.prefix });
    if (words.length === 0) return [];
    const rows = Math.max(1, rowCount());
    const terms = toTerms(words);
    if (terms.length === 0) return [];
    const want = Math.min(Math.max(limit + Math.min(limit, 100), minCandidates), Math.max(limit, MAX_CANDIDATES));
    const scope = (otherCollections.get(json(datasetIds)) as number)
      ? `scope : (${datasetIds.map((d) => quote(scopeToken(d))).join(' OR ')})`
      : null;
    // No item list (those are matched by FTS5 below): the words' occurrences are read from the index. Common
    // words (or not yet counted), when enough rows hold them all: those rows' only. Otherwise, rare enough
    // words (unless the cached counts already say too many): every occurrence, and so their exact df.
    const known = terms.reduce((n, t) => n + (Number.isNaN(t.df) ? 0 : t.df), 0);
    let occurrences: Occurrences | null = null;
    let fullMatches = false;
    const uncounted = terms.some((t) => Number.isNaN(t.df));
    if (!mediaIds && terms.length > 1 && fullMatchRows !== Infinity && (known > fullMatchRows || uncounted)) {
      fullMatches = (occurrences = readFullMatches(terms, scope, want)) !== null;
    }
    if (!mediaIds && !occurrences && known <= postingsBudget) {
      occurrences = postings(terms, postingsBudget, (i, df) => cacheDf(terms[i].expr, (terms[i].df = df), true));
    }
    for (const t of terms) t.df = Number.isNaN(t.df) ? documentFrequency(t.expr, rows) : Math.min(t.df, rows);

    // 1. candidate rows
    const rowsOf = (ids: number[]) => (ids.length ? (docsById.all(json(ids)) as DocRow[]) : []);
    const idf = terms.map((t) => Math.log(1 + (rows - t.df + 0.5) / (t.df + 0.5)));
    // The result object is reused (a row at a time, ~30k of them with common words): read it at once.
    const scored = { bm25: 0, matched: 0 };
    const score: Score = (tfs, prefixTfs, at = 0) => {
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
    let docs: DocRow[];
    if (occurrences) {
      options.onPath?.(fullMatches ? 'fullMatches' : 'occurrences');
      docs = rowsOf(bestRows(occurrences, terms, fullMatches ? null : scope, score, want));
    } else if (!mediaIds) {
      options.onPath?.('candidates');
      docs = rowsOf(candidates(terms, scope, null, want));
    } else if (mediaIds.length <= joinIds) {
      const all = docsOfMedia.all(json(mediaIds), json(datasetIds), DIRECT_ROWS + 1) as DocRow[];
      const scanned = terms.reduce((sum, t) => sum + t.df, 0);
      const direct = all.length <= DIRECT_ROWS && all.length * directCost <= scanned;
      options.onPath?.(direct ? 'items' : 'candidates');
      docs = direct ? all : rowsOf(candidates(terms, scope, mediaIds, want));
    } else {
      options.onPath?.('candidates');
      const allowed = new Set(mediaIds);
      for (let k = want * 2; ; k *= 4) {
        const ids = candidates(terms, scope, null, Math.min(k, MAX_CANDIDATES));
        docs = rowsOf(ids).filter((d) => allowed.has(d.media_id));
        if (docs.length >= want || ids.length < Math.min(k, MAX_CANDIDATES) || k >= MAX_CANDIDATES) break;
      }
    }
    if (docs.length === 0) return [];

    // 2. frames and items, with the items of the frames; what matched where
    const frames = new Map<string, Unit>();
    const items = new Map<string, Unit>();
    const newUnit = (mediaId: string, frameId: string | null): Unit => ({
      mediaId,
      frameId,
      datasetId: '',
      fields: new Set(),
      tf: terms.map(() => 0),
      prefixTf: terms.map(() => 0),
    });
    for (const d of docs) {
      if (d.frame_id !== null) {
        if (!frames.has(d.frame_id)) frames.set(d.frame_id, newUnit(d.media_id, d.frame_id));
      } else if (!items.has(d.media_id)) items.set(d.media_id, newUnit(d.media_id, null));
    }
    // Every indexed frame's item is live and indexed too: its own text may complete the frame's match.
    for (const f of frames.values()) if (!items.has(f.mediaId)) items.set(f.mediaId, newUnit(f.mediaId, null));
    if (occurrences) analyseRows(frames, items, occurrences, datasetIds, fullMatches ? terms : null);
    else analyse(frames, items, terms);
    for (const f of frames.values()) f.datasetId = items.get(f.mediaId)!.datasetId;

    // 3. scores
    const hits: TextHit[] = [];
    const add = (u: Unit, item: Unit | undefined) => {
      const { bm25, matched } = item
        ? score(
            u.tf.map((n, i) => n + item.tf[i]),
            u.prefixTf.map((n, i) => n + item.prefixTf[i]),
          )
        : score(u.tf, u.prefixTf);
      if (matched === 0) return;
      const fields = item ? new Set([...u.fields, ...item.fields]) : u.fields;
      hits.push({
        mediaId: u.mediaId,
        frameId: u.frameId,
        datasetId: u.datasetId,
        score: textRank(bm25, matched, terms.length),
        bm25,
        termsMatched: matched,
        termsTotal: terms.length,
        matchedFields: TEXT_FIELDS.filter((f) => fields.has(f)),
      });
    };
    for (const f of frames.values()) if (f.fields.size) add(f, items.get(f.mediaId));
    for (const i of items.values()) if (i.fields.size) add(i, undefined);
    const allowed = new Set(datasetIds);

    hits.sort(
      (a, b) =>
        b.score - a.score ||
        b.bm25 - a.bm25 ||
        (a.mediaId < b.mediaId ? -1 : a.mediaId > b.mediaId ? 1 : 0) ||
        ((a.frameId ?? '') < (b.frameId ?? '') ? -1 : 1),
    );
    return hits.filter((h) => allowed.has(h.datasetId)).slice(0, limit);
  }

  return { search: async (q) => search(q) };
}
