import Database from 'better-sqlite3';
import {
  parseQuery,
  textRank,
  TEXT_FIELDS,
  WORD_PATTERN,
  type QueryTerm,
  type TextField,
  type TextHit,
  type TextIndex,
  type TextSearchQuery,
} from '../../search/textIndex.js';
import type { Db } from './database.js';

/**
 * The FTS5 text index (migrations/005_text_index.sql): table `text_index`
 * (columns caption, ocr, name, description, tag, scope) with one row per live
 * frame that has captions or OCR text and one per live item (name,
 * description, tags); `text_index_docs` maps each rowid to its item, frame and
 * collection. Triggers keep both in step with the data.
 *
 * A search, with the user's words always quoted (no FTS5 syntax ever comes
 * from the user):
 *  1. one FTS5 query: the documents matching ANY query word (or its other
 *     forms, or the last word as a prefix) in the given collections or items,
 *     best bm25 first, a few times `limit` of them;
 *  2. which words matched in which columns, for those documents and for the
 *     item documents of the frames among them: their text is read back from the
 *     source tables and cut into index terms by the same tokenizer (see
 *     Stemmer), which is exact and cheaper than one FTS5 query per word;
 *  3. a frame hit absorbs its item's own match (name, description, tags), so
 *     "beach sunset" finds the frame captioned "sunset" of "beach.jpg" as a full
 *     match; scores are textRank (src/search/textIndex.ts), best first.
 */

const WORD_COLUMNS = '{caption ocr name description tag}';
/** bm25 weights: caption, ocr, name, description, tag, scope (scope never scores). */
const BM25 = 'bm25(text_index, 1, 1, 1, 1, 1, 0)';
/** Most candidates read in step 1. */
const MAX_CANDIDATES = 20_000;

/** The token naming a collection in the `scope` column (the trailing digit keeps the stemmer off it). */
export const scopeToken = (datasetId: string): string => `ds${datasetId.replace(/-/g, '').toLowerCase()}0`;

const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/**
 * Cuts text into index terms with FTS5's own tokenizer (porter unicode61
 * remove_diacritics 2, in a private in-memory database), word by word with a
 * cache, so the query side knows exactly which terms the index holds for a
 * word: two forms of a query word with the same stem are searched once, and
 * matched words can be found in a document's text without asking FTS5 per word.
 */
export class Stemmer {
  private db: Database.Database | null = null;
  private cache = new Map<string, string[]>();
  private insert!: Database.Statement;
  private read!: Database.Statement;
  private clear!: Database.Statement;

  constructor(private readonly maxCached = 200_000) {}

  private open(): Database.Database {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE words USING fts5(w, tokenize = 'porter unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE terms USING fts5vocab(words, 'instance');`);
    this.insert = db.prepare(`INSERT INTO words (rowid, w) VALUES (?, ?)`);
    this.read = db.prepare(`SELECT doc, term FROM terms ORDER BY doc, offset`);
    this.clear = db.prepare(`DELETE FROM words`);
    return db;
  }

  /** The index terms of each word (usually exactly one; none for a word the tokenizer drops). */
  terms(words: string[]): string[][] {
    const missing = [...new Set(words.filter((w) => !this.cache.has(w)))];
    if (missing.length) {
      const db = (this.db ??= this.open());
      const rows = db.transaction(() => {
        missing.forEach((w, i) => this.insert.run(i + 1, w));
        const found = this.read.all() as Array<{ doc: number; term: string }>;
        this.clear.run();
        return found;
      })();
      const byWord = missing.map(() => [] as string[]);
      for (const r of rows) byWord[r.doc - 1].push(r.term);
      if (this.cache.size + missing.length > this.maxCached) this.cache.clear();
      missing.forEach((w, i) => this.cache.set(w, byWord[i]));
    }
    return words.map((w) => this.cache.get(w)!);
  }

  /** The set of index terms of a text. */
  termSet(text: string | null): Set<string> {
    if (!text) return new Set();
    return new Set(this.terms(text.match(WORD_PATTERN) ?? []).flat());
  }
}

/** A query word as the index sees it. */
interface Term {
  /** Index terms of the word and its other forms (bus, buses: "bu", "buse"). */
  exact: Set<string>;
  /** Index-term prefix when the word may match as a prefix. */
  prefix: string | null;
  /** FTS5 expression matching any of them. */
  expr: string;
}

function toTerms(stemmer: Stemmer, words: QueryTerm[]): Term[] {
  const out: Term[] = [];
  for (const w of words) {
    const stems = stemmer.terms(w.forms);
    // The word must be one index term (a word the tokenizer drops or splits is skipped); other forms likewise.
    if (stems[0].length !== 1) continue;
    const exact = new Set<string>();
    const parts: string[] = [];
    w.forms.forEach((form, i) => {
      if (stems[i].length === 1 && !exact.has(stems[i][0])) {
        exact.add(stems[i][0]);
        parts.push(quote(form));
      }
    });
    const prefix = w.prefix ? stems[0][0] : null;
    if (prefix !== null) parts.push(`${quote(w.text)}*`);
    out.push({ exact, prefix, expr: parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})` });
  }
  return out;
}

interface Row { id: number; bm25: number; kind: 'caption' | 'ocr' | 'item' | 'tag'; media_id: string; frame_id: string | null; dataset_id: string }

/** A frame (its captions and OCR rows) or an item (its own and its tags' rows). */
interface Unit {
  mediaId: string;
  frameId: string | null;
  datasetId: string;
  bm25: number;
  fields: Set<TextField>;
  /** Per query word: 1 matched, 0.5 matched as a prefix only, 0 not. */
  credit: number[];
}

export interface SqliteTextIndexOptions {
  /** A shared stemmer (its cache); one of its own by default. */
  stemmer?: Stemmer;
}

export function sqliteTextIndex(db: Db, options: SqliteTextIndexOptions = {}): TextIndex {
  const stemmer = options.stemmer ?? new Stemmer();
  const json = (v: unknown[]) => JSON.stringify(v);

  const ROW = `t.rowid AS id, ${BM25} AS bm25, d.kind, d.media_id, d.frame_id, d.dataset_id`;
  const ranked = db.prepare(
    `SELECT ${ROW} FROM text_index t JOIN text_index_docs d ON d.id = t.rowid
     WHERE text_index MATCH ? AND d.dataset_id IN (SELECT value FROM json_each(?))
     ORDER BY bm25 LIMIT ?`,
  );
  const rankedInMedia = db.prepare(
    `SELECT ${ROW} FROM text_index t JOIN text_index_docs d ON d.id = t.rowid
     WHERE text_index MATCH ? AND d.dataset_id IN (SELECT value FROM json_each(?))
       AND d.media_id IN (SELECT value FROM json_each(?))
     ORDER BY bm25 LIMIT ?`,
  );
  /** The item-level rows (name and description, tags) of these items that match. */
  const itemRows = db.prepare(
    `SELECT ${ROW} FROM text_index t JOIN text_index_docs d ON d.id = t.rowid
     WHERE text_index MATCH ? AND t.rowid IN
       (SELECT id FROM text_index_docs WHERE media_id IN (SELECT value FROM json_each(?)) AND frame_id IS NULL)`,
  );
  const captionText = db.prepare(
    `SELECT frame_id AS id, caption AS text FROM text_index_captions WHERE frame_id IN (SELECT value FROM json_each(?))`,
  );
  const ocrText = db.prepare(`SELECT frame_id AS id, ocr AS text FROM text_index_ocr WHERE frame_id IN (SELECT value FROM json_each(?))`);
  const itemText = db.prepare(
    `SELECT media_id AS id, name, description FROM text_index_items WHERE media_id IN (SELECT value FROM json_each(?))`,
  );
  const tagText = db.prepare(`SELECT media_id AS id, tag AS text FROM text_index_tags WHERE media_id IN (SELECT value FROM json_each(?))`);

  /** Records which words matched in one field's text of a unit. */
  function credit(u: Unit, field: TextField, text: string | null, terms: Term[]): void {
    const set = stemmer.termSet(text);
    if (set.size === 0) return;
    terms.forEach((t, i) => {
      let c = 0;
      for (const s of t.exact) if (set.has(s)) c = 1;
      if (c === 0 && t.prefix !== null) for (const s of set) if (s.startsWith(t.prefix)) { c = 0.5; break; }
      if (c > 0) {
        u.fields.add(field);
        if (c > u.credit[i]) u.credit[i] = c;
      }
    });
  }

  /** Which words matched in which fields of these units, from their text (exact: same tokenizer). */
  function analyse(frames: Map<string, Unit>, items: Map<string, Unit>, terms: Term[]): void {
    if (frames.size) {
      const ids = json([...frames.keys()]);
      for (const r of captionText.all(ids) as Array<{ id: string; text: string }>) credit(frames.get(r.id)!, 'caption', r.text, terms);
      for (const r of ocrText.all(ids) as Array<{ id: string; text: string }>) credit(frames.get(r.id)!, 'ocr', r.text, terms);
    }
    if (items.size) {
      const ids = json([...items.keys()]);
      for (const r of itemText.all(ids) as Array<{ id: string; name: string; description: string | null }>) {
        credit(items.get(r.id)!, 'name', r.name, terms);
        credit(items.get(r.id)!, 'description', r.description, terms);
      }
      for (const r of tagText.all(ids) as Array<{ id: string; text: string }>) credit(items.get(r.id)!, 'tag', r.text, terms);
    }
  }

  function search(q: TextSearchQuery): TextHit[] {
    const limit = Math.floor(q.limit);
    const datasetIds = [...new Set(q.datasetIds)];
    if (!(limit > 0) || datasetIds.length === 0 || (q.mediaIds && q.mediaIds.length === 0)) return [];
    const terms = toTerms(stemmer, parseQuery(q.query, { prefix: q.prefix }));
    if (terms.length === 0) return [];
    const match = `${WORD_COLUMNS} : (${terms.map((t) => t.expr).join(' OR ')})`;
    const want = Math.min(Math.max(limit * 2, 200), Math.max(limit, MAX_CANDIDATES));

    // 1. the best-matching rows, grouped into frames and items
    const rows = (q.mediaIds
      ? rankedInMedia.all(match, json(datasetIds), json(q.mediaIds), want)
      : ranked.all(match, json(datasetIds), want)) as Row[];
    if (rows.length === 0) return [];
    const frames = new Map<string, Unit>();
    const items = new Map<string, Unit>();
    const unit = (r: Row): Unit => {
      const map = r.frame_id === null ? items : frames;
      const key = r.frame_id ?? r.media_id;
      let u = map.get(key);
      if (!u) {
        u = { mediaId: r.media_id, frameId: r.frame_id, datasetId: r.dataset_id, bm25: 0, fields: new Set(), credit: terms.map(() => 0) };
        map.set(key, u);
      }
      return u;
    };
    for (const r of rows) unit(r).bm25 += r.bm25;

    // 2. what matched where; the items of the candidate frames join in when their own text matches
    const candidateItems = new Set(items.keys());
    const siblings = new Map<string, Unit>();
    for (const f of frames.values()) {
      if (!items.has(f.mediaId) && !siblings.has(f.mediaId)) {
        siblings.set(f.mediaId, { mediaId: f.mediaId, frameId: null, datasetId: f.datasetId, bm25: 0, fields: new Set(), credit: terms.map(() => 0) });
      }
    }
    analyse(frames, new Map([...items, ...siblings]), terms);
    const matchedSiblings = [...siblings.values()].filter((u) => u.fields.size > 0);
    if (matchedSiblings.length) {
      for (const u of matchedSiblings) items.set(u.mediaId, u);
      for (const r of itemRows.all(match, json(matchedSiblings.map((u) => u.mediaId))) as Row[]) items.get(r.media_id)!.bm25 += r.bm25;
    }

    // 3. hits: each frame with its item's own match; each item matched by its own text (stands for all its frames)
    const hit = (u: Unit, item: Unit | undefined): TextHit => {
      const credits = item ? u.credit.map((c, i) => Math.max(c, item.credit[i])) : u.credit;
      // FTS5 matched it: at least half a word did, even if reading the text back disagreed.
      const termsMatched = Math.max(credits.reduce((sum, c) => sum + c, 0), 0.5);
      const bm25 = u.bm25 + (item ? item.bm25 : 0);
      const fields = item ? new Set([...u.fields, ...item.fields]) : u.fields;
      return {
        mediaId: u.mediaId,
        frameId: u.frameId,
        datasetId: u.datasetId,
        score: textRank(bm25, termsMatched, terms.length),
        bm25,
        termsMatched,
        termsTotal: terms.length,
        matchedFields: TEXT_FIELDS.filter((f) => fields.has(f)),
      };
    };
    const hits: TextHit[] = [];
    for (const f of frames.values()) hits.push(hit(f, items.get(f.mediaId)));
    for (const [mediaId, u] of items) if (candidateItems.has(mediaId)) hits.push(hit(u, undefined));

    hits.sort(
      (a, b) =>
        b.score - a.score ||
        a.bm25 - b.bm25 ||
        (a.mediaId < b.mediaId ? -1 : a.mediaId > b.mediaId ? 1 : 0) ||
        ((a.frameId ?? '') < (b.frameId ?? '') ? -1 : 1),
    );
    return hits.slice(0, limit);
  }

  return { search: async (q) => search(q) };
}
