import pg from 'pg';

/**
 * The PostgreSQL handle every store under storage/postgres/ and index/{vector,text}/postgres/ shares:
 * a `pg` connection pool (node-postgres: the most used driver, pure JS with a typed API, a pool, LISTEN
 * support and COPY streams; `postgres` would do too, but its tagged-template API hides the SQL text we
 * keep in plain files and statements), plus a transaction helper.
 *
 * Values come back in the shapes the SQLite stores give: timestamps as ISO strings with milliseconds and
 * `Z` (the session's TimeZone is UTC), bigint counts as numbers.
 */
export interface PgDb {
  readonly pool: pg.Pool;
  /** The schema the tables live in (`public` unless the operator or a test chose one). */
  readonly schema: string;
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<T>>;
  /** All rows. */
  many<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** The first row, or null. */
  one<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T | null>;
  /**
   * Runs `fn` in one transaction on one connection (COMMIT when it returns, ROLLBACK when it throws).
   * Statements inside must go through the `tx` handed to `fn`, never through this PgDb.
   */
  tx<T>(fn: (tx: PgTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A connection inside a transaction: the same reading helpers as PgDb. */
export interface PgTx {
  readonly client: pg.PoolClient;
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<T>>;
  many<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  one<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T | null>;
}

/** Something that runs statements: the pool (each statement its own transaction) or a transaction. */
export type PgRunner = Pick<PgDb, 'query' | 'many' | 'one'>;

const TIMESTAMPTZ = 1184;
const TIMESTAMP = 1114;
const INT8 = 20;
const NUMERIC = 1700;

/** '2026-11-27 08:25:45.123+00' (TimeZone UTC) → '2026-11-27T08:25:45.123Z'. */
export function pgTimestampToIso(text: string): string {
  return new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString();
}

let parsersSet = false;
function setTypeParsers(): void {
  if (parsersSet) return;
  parsersSet = true;
  pg.types.setTypeParser(TIMESTAMPTZ, pgTimestampToIso);
  pg.types.setTypeParser(TIMESTAMP, (v) => pgTimestampToIso(`${v}+00`));
  // Counts and sums: every one we keep fits a double exactly (below 2^53).
  pg.types.setTypeParser(INT8, (v) => Number(v));
  pg.types.setTypeParser(NUMERIC, (v) => Number(v));
}

export interface PgOptions {
  /** Connections in the pool (default 10). */
  max?: number;
  /** Tables live in this schema (created if missing); default `public`. Extensions stay in `public`. */
  schema?: string;
  /** How long opening a connection may take before it fails (default 10,000 ms). */
  connectTimeoutMs?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/** Opens a pool on `url`; every connection works in UTC in `schema` (then `public`, for the extensions). */
export function openPgDb(url: string, options: PgOptions = {}): PgDb {
  setTypeParsers();
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    // Without a limit a connect to an unreachable host waits for the OS (minutes), holding the request or
    // the job claim that needed a connection; a pool that cannot connect in 10 s answers "unavailable".
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // Startup parameters: every connection is in UTC and looks in `schema` first, before its first statement.
    options: `-c TimeZone=UTC -c search_path=${schema},public`,
  });
  // An idle connection that breaks (the server restarted) must not take the process down.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const runner = (q: pg.Pool | pg.PoolClient): PgRunner => ({
    query: (sql, params) => q.query(sql, params as unknown[]),
    many: async (sql, params) => (await q.query(sql, params as unknown[])).rows,
    one: async (sql, params) => (await q.query(sql, params as unknown[])).rows[0] ?? null,
  });
  const db: PgDb = {
    pool,
    schema,
    ...(runner(pool) as Pick<PgDb, 'query' | 'many' | 'one'>),
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({ client, ...(runner(client) as Pick<PgTx, 'query' | 'many' | 'one'>) });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
  return db;
}

/**
 * The name of a session advisory lock that guards work on this schema's tables (the watched folders' leader, a
 * vector rebuild). Advisory locks belong to the whole database, not a schema: two libraries in one database
 * (DATABASE_SCHEMA) would otherwise share one leader. `public` keeps the bare name, as before.
 */
export function schemaLockName(db: Pick<PgDb, 'schema'>, name: string): string {
  return db.schema === 'public' ? name : `${db.schema}.${name}`;
}

/** SQLSTATE of a unique violation: the stores turn it into the same errors SQLite's constraint errors give. */
export const UNIQUE_VIOLATION = '23505';

export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === UNIQUE_VIOLATION;
}
