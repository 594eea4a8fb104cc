import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../platform/packageRoot.js';
import type { PgDb } from './database.js';

/** One folder of numbered `.sql` files, recorded in schema_migrations as `<set>/<file>`. */
export interface MigrationSet {
  /** `library` for the relational stores, `vector` for the pgvector index (kept apart: see README "Scaling out"). */
  name: string;
  dir: string;
}

/** The relational stores' migrations: every PostgreSQL server with ltree can run them. */
export const LIBRARY_MIGRATIONS: MigrationSet = {
  name: 'library',
  dir: path.join(PACKAGE_ROOT, 'src', 'storage', 'postgres', 'migrations'),
};

/** The vector index's migrations: they need the `vector` extension (pgvector), so they run only with vector search on. */
export const VECTOR_MIGRATIONS: MigrationSet = {
  name: 'vector',
  dir: path.join(PACKAGE_ROOT, 'src', 'index', 'vector', 'postgres', 'migrations'),
};

/** A key of our own for pg_advisory_lock: several processes starting at once migrate one after the other. */
const MIGRATION_LOCK = 0x6c756d65; // 'lume'

export function migrationFiles(set: MigrationSet): string[] {
  let names: string[];
  try {
    names = readdirSync(set.dir);
  } catch {
    return [];
  }
  return names.filter((f) => /^\d+_.*\.sql$/.test(f)).sort();
}

/**
 * Applies each migration not yet recorded, set by set, file by file in number order, each in its own
 * transaction with its record: a failure leaves the schema as the last whole migration left it. Runs under
 * a session advisory lock so that processes starting together wait for the first one instead of racing.
 * Returns the migrations applied (`set/file`).
 */
export async function migratePg(db: PgDb, sets: MigrationSet[]): Promise<string[]> {
  const client = await db.pool.connect();
  try {
    await client.query(`SET TimeZone = 'UTC'; SET search_path = ${db.schema}, public`);
    await client.query(`SELECT pg_advisory_lock($1)`, [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${db.schema}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const done = new Set((await client.query(`SELECT name FROM schema_migrations`)).rows.map((r) => r.name));
      const applied: string[] = [];
      for (const set of sets) {
        for (const file of migrationFiles(set)) {
          const name = `${set.name}/${file}`;
          if (done.has(name)) continue;
          const sql = readFileSync(path.join(set.dir, file), 'utf8');
          await client.query('BEGIN');
          try {
            await client.query(sql);
            await client.query(`INSERT INTO schema_migrations (name) VALUES ($1)`, [name]);
            await client.query('COMMIT');
          } catch (err) {
            await client.query('ROLLBACK').catch(() => {});
            throw new MigrationError(name, err);
          }
          applied.push(name);
        }
      }
      return applied;
    } finally {
      await client.query(`SELECT pg_advisory_unlock($1)`, [MIGRATION_LOCK]).catch(() => {});
    }
  } finally {
    client.release();
  }
}

/** A migration that failed: its name and the server's words, with the fix when it is a missing extension. */
export class MigrationError extends Error {
  constructor(
    readonly migration: string,
    override readonly cause: unknown,
  ) {
    const text = cause instanceof Error ? cause.message : String(cause);
    const ext = /extension "(\w+)"/.exec(text)?.[1];
    super(
      ext
        ? `PostgreSQL lacks the "${ext}" extension (migration ${migration}): install it on the server` +
            (ext === 'vector' ? ' (pgvector), or start with VECTOR_SEARCH=off' : ' (postgresql-contrib)')
        : `migration ${migration} failed: ${text}`,
    );
    this.name = 'MigrationError';
  }
}
