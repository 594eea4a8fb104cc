import { setImmediate as turn } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import type { Db } from './db.js';

/**
 * Reads into a connection's page cache what a text search looks up row by
 * row: the row map (text_index_docs: each candidate row's item and frame),
 * its media index (the other rows of each frame and item found) and the FTS5
 * index's own pages (the words' lists), read in order in a few seconds; a
 * search over a cold library otherwise reads hundreds of those pages one at a
 * time, most of its time where the OS keeps little of the file cached
 * (sizes: docs/measurements/text-index.md).
 *
 * In slices of SLICE rows, with a turn of the event loop between them, so
 * searches asked meanwhile are answered. Pages beyond the cache's size push
 * out earlier ones (harmless: they are read again when needed).
 */
const SLICE = 20_000;

export async function warmTextIndex(db: Db): Promise<number> {
  let rows = 0;
  // The row map and the FTS5 data, by rowid (NOT INDEXED: the table itself, not an index holding the rowid).
  for (const table of ['text_index_docs', 'text_index_data']) {
    rows += await inSlices(
      db.prepare(
        `SELECT count(*) AS n, max(id) AS last FROM (SELECT id FROM ${table} NOT INDEXED WHERE id > ? ORDER BY id LIMIT ${SLICE})`,
      ),
      -Infinity,
    );
  }
  // The media index, in key order, by media_id from the last entry read.
  rows += await inSlices(
    db.prepare(
      `SELECT count(*) AS n, max(media_id) AS last FROM (
         SELECT media_id FROM text_index_docs INDEXED BY text_index_docs_media
         WHERE media_id > ? ORDER BY media_id LIMIT ${SLICE}
       )`,
    ),
    '',
  );
  return rows;
}

/** Runs a slice statement (rows after a key: their count and last key) from `first` to the end; the rows read. */
async function inSlices(slice: Database.Statement, first: number | string): Promise<number> {
  let rows = 0;
  for (let after = first; ;) {
    const r = slice.get(after) as { n: number; last: number | string | null };
    rows += r.n;
    if (r.n < SLICE || r.last === null) return rows;
    after = r.last;
    await turn();
  }
}
