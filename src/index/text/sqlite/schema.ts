import type Database from 'better-sqlite3';
import type { Db } from './db.js';

/**
 * The FTS5 text index as the search sees it (tables from
 * src/storage/sqlite/migrations/005_text_index.sql and 008_text_index_rows.sql):
 * `text_index` (FTS5, contentless; columns caption, ocr, name, description,
 * tag, scope), one row per live caption, OCR text object, item (name and
 * description) and tag value; `text_index_docs` maps each rowid to its kind,
 * item and frame; `text_index_rows` holds their number. The writer
 * (writer.ts) keeps them in step with the data.
 */

/** The FTS5 column filter for the user's words (never the `scope` column). */
export const WORD_COLUMNS = '{caption ocr name description tag}';
/** FTS5 bm25 weights: caption, ocr, name, description, tag, scope (never scores). */
export const FTS_BM25 = 'bm25(text_index, 1, 1, 1, 1, 1, 0)';

/** The token naming a collection in the `scope` column (the trailing digit keeps the stemmer off it). */
export const scopeToken = (collectionId: string): string => `ds${collectionId.replace(/-/g, '').toLowerCase()}0`;
/** scopeToken in SQL, of a collection id column (dataset_id) (the writer's inserts). */
export const scopeTokenSql = (column: string): string => `'ds' || replace(lower(${column}), '-', '') || '0'`;

/** A word as an FTS5 string (the user's words are always quoted: no FTS5 syntax ever comes from the user). */
export const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** A row of text_index_docs. */
export interface DocRow {
  id: number;
  kind: 'caption' | 'ocr' | 'item' | 'tag';
  media_id: string;
  frame_id: string | null;
}

/** The statements a search runs, prepared once per index. */
export interface TextIndexStatements {
  /** A statement built per query shape (candidates), prepared once per distinct SQL. */
  prepared(sql: string): Database.Statement;
  rowCount: Database.Statement;
  rowidSpan: Database.Statement;
  dfCount: Database.Statement;
  otherCollections: Database.Statement;
  docsById: Database.Statement;
  docsOfMedia: Database.Statement;
  frameText: Database.Statement;
  itemText: Database.Statement;
  tagText: Database.Statement;
  matchingRows: Database.Statement;
  firstMatches: Database.Statement;
  matchCount: Database.Statement;
  unitRows: Database.Statement;
  itemCollections: Database.Statement;
}

export function prepareStatements(db: Db): TextIndexStatements {
  const statements = new Map<string, Database.Statement>();
  const prepared = (sql: string) => {
    let st = statements.get(sql);
    if (!st) statements.set(sql, (st = db.prepare(sql)));
    return st;
  };
  return {
    prepared,
    // Rows in the index, for idf: kept by triggers on text_index_docs (migrations/008_text_index_rows.sql).
    rowCount: db.prepare(`SELECT rows FROM text_index_rows WHERE id = 1`).pluck(),
    // Two subqueries: SQLite reads min() or max() from the end of the rowid b-tree only when it is the query's one
    // aggregate (together they would scan the whole table).
    rowidSpan: db.prepare(
      `SELECT (SELECT min(id) FROM text_index_docs) AS lo, (SELECT max(id) FROM text_index_docs) AS hi`,
    ),
    dfCount: db.prepare(
      `SELECT count(*) AS n, min(rowid) AS low FROM (SELECT rowid FROM text_index WHERE text_index MATCH ? ORDER BY rowid DESC LIMIT ?)`,
    ),
    otherCollections: db
      .prepare(`SELECT EXISTS (SELECT 1 FROM collections WHERE id NOT IN (SELECT value FROM json_each(?)))`)
      .pluck(),
    docsById: db.prepare(
      `SELECT id, kind, media_id, frame_id FROM text_index_docs WHERE id IN (SELECT value FROM json_each(?))`,
    ),
    docsOfMedia: db.prepare(
      `SELECT d.id, d.kind, d.media_id, d.frame_id FROM text_index_docs d JOIN media m ON m.id = d.media_id
       WHERE d.media_id IN (SELECT value FROM json_each(?)) AND m.dataset_id IN (SELECT value FROM json_each(?)) LIMIT ?`,
    ),
    // The text of indexed frames and items, read back: a frame's caption and OCR rows through the index's own
    // rows (so the item's other objects are not read), an item's name and description from media (its dataset
    // too), its tags from media_tags (which holds live items' tags only), its people's names and its place.
    frameText: db.prepare(
      `SELECT d.frame_id AS id, d.kind, coalesce(c.text, o.label) AS text
       FROM json_each(?) j
       JOIN text_index_docs d ON d.media_id = j.value ->> 0 AND d.frame_id = j.value ->> 1
       LEFT JOIN captions c ON d.kind = 'caption' AND c.id = d.source
       LEFT JOIN detected_objects o ON d.kind = 'ocr' AND o.id = d.source`,
    ),
    itemText: db.prepare(
      `SELECT id, dataset_id, name, description FROM media WHERE id IN (SELECT value FROM json_each(?))`,
    ),
    tagText: db.prepare(
      `SELECT media_id AS id, value AS text FROM media_tags WHERE media_id IN (SELECT value FROM json_each(?))
       UNION ALL
       SELECT media_id, name FROM people_text_rows WHERE media_id IN (SELECT value FROM json_each(?))
       UNION ALL
       SELECT media_id, name FROM place_text_rows WHERE media_id IN (SELECT value FROM json_each(?))`,
    ),
    // With the index's occurrences in hand: which rows match at all (collection filter), and the rowids of
    // frames and of items' own text (from text_index_docs' media index alone), the items' collections.
    matchingRows: db.prepare(`SELECT rowid FROM text_index WHERE text_index MATCH ?`).pluck(),
    firstMatches: db.prepare(`SELECT rowid FROM text_index WHERE text_index MATCH ? LIMIT ?`).pluck(),
    matchCount: db.prepare(`SELECT count(*) FROM text_index WHERE text_index MATCH ?`).pluck(),
    unitRows: db.prepare(
      `SELECT d.id, d.media_id, d.frame_id FROM json_each(?) j
       JOIN text_index_docs d ON d.media_id = j.value ->> 0 AND d.frame_id IS j.value ->> 1`,
    ),
    itemCollections: db.prepare(`SELECT id, dataset_id FROM media WHERE id IN (SELECT value FROM json_each(?))`),
  };
}
