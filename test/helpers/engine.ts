/**
 * Which engine the black-box suites run on, and the few ways a test may depend on it (issue #25).
 *
 * `npm run test:pg` runs test/http and test/features with TEST_DATABASE=pglite (or TEST_DATABASE_URL): the same
 * files, unchanged, on PostgreSQL. A test that must move a row's clock (an expired invite, an idle session) does
 * it with `engineSql`, which runs the same statement on either engine. A test that is about SQLite itself (it
 * damages library.db, reads SQLite's own tables) is marked with `sqliteOnly(reason)`, which prints a SKIP line
 * the runner shows, never a silent pass.
 */
import type { PgDb } from '../../src/platform/pgDb.js';
import type { SqliteStorage } from '../../src/storage/sqlite/index.js';
import type { TestApp } from './testApp.js';

/** True when the suites run on PostgreSQL (`npm run test:pg`, or TEST_DATABASE_URL). */
export const onPostgres = process.env.TEST_DATABASE === 'pglite' || !!process.env.TEST_DATABASE_URL;

/**
 * True (and a printed SKIP line naming the reason) when the suites run on PostgreSQL: the caller then skips a test
 * that is about SQLite itself. Use as `if (sqliteOnly('…')) return;` or to pick `t.skip` over `t`.
 */
export function sqliteOnly(reason: string): boolean {
  if (!onPostgres) return false;
  console.log(`\nSKIP SQLite only (TEST_DATABASE=${process.env.TEST_DATABASE ?? 'url'}): ${reason}`);
  return true;
}

type SqlValue = string | number | null;

export interface EngineSql {
  /** Runs one statement written with `?` placeholders (plain SQL both engines read alike). */
  run(sql: string, ...params: SqlValue[]): Promise<void>;
  /** The first column of the first row (null when none); PostgreSQL's bigint counts come back as numbers. */
  value(sql: string, ...params: SqlValue[]): Promise<unknown>;
}

/** `?` placeholders as PostgreSQL's `$1, $2, …`. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/**
 * Statements on the app's own database, whichever engine it runs: SQLite's handle or PostgreSQL's pool. Takes the
 * app or its storage (a test that holds only the services).
 */
export function engineSql(of: TestApp | object): EngineSql {
  const storage = 'app' in of && 'baseUrl' in of ? of.app.services.storage : of;
  const db = (storage as unknown as { db: SqliteStorage['db'] | PgDb }).db;
  return {
    async run(sql, ...params) {
      if ('pool' in db) await db.query(numbered(sql), params);
      else db.prepare(sql).run(...params);
    },
    async value(sql, ...params) {
      if (!('pool' in db))
        return (
          db
            .prepare(sql)
            .pluck()
            .get(...params) ?? null
        );
      const { rows, fields } = await db.pool.query<unknown[]>({
        text: numbered(sql),
        values: params,
        rowMode: 'array',
      });
      const v = rows[0]?.[0] ?? null;
      return fields[0]?.dataTypeID === 20 && typeof v === 'string' ? Number(v) : v;
    },
  };
}

/**
 * True (and a printed SKIP line) on PGlite only: for what PGlite's one WebAssembly backend cannot serve (Debian's
 * pg_dump refuses its newer server version); a real server through TEST_DATABASE_URL still runs the test.
 */
export function notOnPglite(reason: string): boolean {
  if (process.env.TEST_DATABASE_URL || process.env.TEST_DATABASE !== 'pglite') return false;
  console.log(`\nSKIP not on PGlite (TEST_DATABASE=pglite): ${reason}`);
  return true;
}

/**
 * True (and a printed SKIP line) on a PostgreSQL server without pgvector (TEST_DATABASE_URL with
 * TEST_DATABASE_VECTOR=off, as Debian's server): the app runs with VECTOR_SEARCH=off there, so search by meaning
 * and by image is off by design (README, "Scaling out"). Use as `(withoutVectors('…') ? t.skip : t)(name, fn)` or
 * `if (withoutVectors('…')) return;`.
 */
export function withoutVectors(reason: string): boolean {
  if (!process.env.TEST_DATABASE_URL || process.env.TEST_DATABASE_VECTOR !== 'off') return false;
  console.log(`\nSKIP no pgvector (TEST_DATABASE_VECTOR=off): ${reason}`);
  return true;
}
