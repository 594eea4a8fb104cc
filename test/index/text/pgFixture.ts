/**
 * The PostgreSQL text index's test helpers: a migrated schema of its own per test (library migrations only:
 * text search needs no pgvector), rows copied by plain SQL from an SQLite library built through the Storage
 * API (so both engines index the very same rows; the PostgreSQL stores are written elsewhere), and
 * assertPgInStep, which proves the triggers keep the index holding exactly the live text and the word counts
 * agreeing with it.
 */
import * as assert from 'uvu/assert';
import { openPgDb, type PgDb } from '../../../src/platform/pgDb.js';
import { LIBRARY_MIGRATIONS, migratePg } from '../../../src/storage/postgres/migrate.js';
import type { Db } from '../../../src/storage/sqlite/database.js';
import { freshSchema } from '../../helpers/pglite.js';

/** A migrated schema of its own on `url`. */
export async function openTextSchema(url: string): Promise<PgDb> {
  const db = openPgDb(url, { schema: freshSchema('text'), max: 4 });
  await migratePg(db, [LIBRARY_MIGRATIONS]);
  return db;
}

/** The tables the text index reads, parents first. */
const TABLES = [
  'organizations',
  'users',
  'collections',
  'media',
  'media_tags',
  'frames',
  'captions',
  'detected_objects',
];

/**
 * Copies the rows of the text index's source tables from an SQLite library into `pg` (columns both have;
 * SQLite's 0/1 as booleans, its JSON text as json). The triggers index them as they arrive.
 */
export async function copyLibrary(sqlite: Db, pg: PgDb): Promise<void> {
  await pg.tx(async (tx) => {
    for (const table of TABLES) {
      const columns = await tx.many<{ name: string; type: string }>(
        `SELECT column_name AS name, data_type AS type FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
        [table],
      );
      const rows = sqlite.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>;
      if (rows.length === 0) continue;
      const shared = columns.filter((c) => c.name in rows[0]);
      const names = shared.map((c) => c.name).join(', ');
      const params = shared.map((_, i) => `$${i + 1}`).join(', ');
      for (const row of rows) {
        const values = shared.map((c) => {
          const v = row[c.name];
          if (v === null || v === undefined) return null;
          return c.type === 'boolean' ? v === 1 || v === true : v;
        });
        await tx.query(`INSERT INTO ${table} (${names}) VALUES (${params})`, values);
      }
    }
  });
}

/** The live text as the index must hold it (SQLite's views, migrations/005_text_index.sql), in SQL. */
const LIVE_ROWS = `
  SELECT 'item' AS kind, m.id AS source, m.id AS media_id, NULL::text AS frame_id, m.dataset_id AS collection_id
  FROM media m WHERE m.status = 'active' AND m.is_current AND m.type <> 'folder'
  UNION ALL
  SELECT 'tag', t.media_id || chr(31) || t.grp || chr(31) || t.value, t.media_id, NULL, m.dataset_id
  FROM media_tags t JOIN media m ON m.id = t.media_id
  WHERE m.status = 'active' AND m.is_current AND m.type <> 'folder'
  UNION ALL
  SELECT 'caption', c.id, f.media_id, f.id, m.dataset_id
  FROM captions c JOIN frames f ON f.id = c.frame_id JOIN media m ON m.id = f.media_id
  WHERE c.status = 'active' AND f.status = 'active' AND m.status = 'active' AND m.is_current AND m.type <> 'folder'
  UNION ALL
  SELECT 'ocr', o.id, f.media_id, f.id, m.dataset_id
  FROM detected_objects o JOIN frames f ON f.id = o.frame_id JOIN media m ON m.id = f.media_id
  WHERE o.type = 'text' AND o.status = 'active' AND f.status = 'active'
    AND m.status = 'active' AND m.is_current AND m.type <> 'folder'`;

/** The text of each live row, to check its terms against. */
const LIVE_TEXT = `
  SELECT 'item' AS kind, m.id AS source, text_index_vector(m.name, 'A') || text_index_vector(m.description, 'B') AS terms
  FROM media m
  UNION ALL SELECT 'tag', t.media_id || chr(31) || t.grp || chr(31) || t.value, text_index_vector(t.value, 'D')
  FROM media_tags t
  UNION ALL SELECT 'caption', c.id, text_index_vector(c.text, 'D') FROM captions c
  UNION ALL SELECT 'ocr', o.id, text_index_vector(o.label, 'D') FROM detected_objects o`;

/**
 * The index holds exactly the live rows, each with its source's current terms and collection, and the word
 * counts (rows and deltas) agree with the rows: the row count and every term's.
 */
export async function assertPgInStep(db: PgDb): Promise<void> {
  const expected = await db.many(`SELECT * FROM (${LIVE_ROWS}) x ORDER BY kind, source`);
  const actual = await db.many(
    `SELECT kind, source, media_id, frame_id, collection_id FROM text_index_docs ORDER BY kind, source`,
  );
  assert.equal(actual, expected, 'text_index_docs holds exactly the live rows');
  const stale = await db.many(
    `SELECT d.kind, d.source FROM text_index_docs d JOIN (${LIVE_TEXT}) s ON s.kind = d.kind AND s.source = d.source
     WHERE s.terms IS DISTINCT FROM d.terms`,
  );
  assert.equal(stale, [], "every row holds its source's current terms");
  const wrong = await db.many(
    `WITH truth AS (
       SELECT '' AS word, count(*) AS n FROM text_index_docs
       UNION ALL SELECT l, count(*) FROM text_index_docs, unnest(tsvector_to_array(terms)) l GROUP BY l),
     kept AS (
       SELECT word, sum(n) AS n FROM (SELECT word, rows AS n FROM text_index_words
                                      UNION ALL SELECT word, delta FROM text_index_word_deltas) k GROUP BY word)
     SELECT coalesce(t.word, k.word) AS word, t.n AS truth, k.n AS kept
     FROM truth t FULL JOIN kept k ON k.word = t.word COLLATE "C"
     WHERE coalesce(t.n, 0) <> coalesce(k.n, 0)`,
  );
  assert.equal(wrong, [], 'word counts agree with the rows');
}
