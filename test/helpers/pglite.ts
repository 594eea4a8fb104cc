/**
 * PostgreSQL for tests with nothing to install: PGlite (PostgreSQL compiled to WebAssembly, with pgvector
 * and ltree) behind its socket server, so the real `pg` driver and the real SQL run against it.
 *
 * Every connection shares ONE backend (../shared/notes/postgres.md §5): NOTIFY never reaches another
 * connection, advisory locks never block, SKIP LOCKED waits. Concurrency is proven on Debian's server
 * instead (./postgresServer.ts). One PGlite per test file (it takes seconds to start); each store a test
 * opens gets a schema of its own (`freshSchema()`), dropped when the next one is made.
 */
import { PGlite } from '@electric-sql/pglite';
import { ltree } from '@electric-sql/pglite/contrib/ltree';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { freePort } from './serverProcess.js';

export interface TestPostgres {
  /** postgres://… on 127.0.0.1. */
  url: string;
  /** Whether pgvector is there (PGlite: yes; Debian's server: no). */
  vector: boolean;
  stop(): Promise<void>;
}

let shared: Promise<TestPostgres> | null = null;

/** The test file's PGlite (started on first use, stopped at exit). */
export function pglite(): Promise<TestPostgres> {
  shared ??= startPglite();
  return shared;
}

/**
 * A PGlite of the caller's own (for an app server whose connections must not share a backend with another's),
 * kept in `dir` when given: stopped and started again on the same folder, it has the same database (a restart).
 */
export function privatePglite(dir?: string): Promise<TestPostgres> {
  return startPglite(dir);
}

async function startPglite(dir?: string): Promise<TestPostgres> {
  const db = await PGlite.create({ ...(dir ? { dataDir: dir } : {}), extensions: { vector, ltree } });
  await db.exec(`CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS ltree;`);
  const port = await freePort();
  const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections: 100 });
  await server.start();
  // The listening socket must not keep the test process alive once its tests are done (open connections still
  // do, while they last): without this, every file that used PGlite waited for ever after its summary.
  (server as unknown as { server: { unref(): void } | null }).server?.unref();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    vector: true,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

let schemas = 0;
/** A new schema name for one store (`t1`, `t2`, …); the tables of the store are made in it by its migrations. */
export function freshSchema(prefix = 't'): string {
  return `${prefix}${process.pid}_${++schemas}`;
}
