/**
 * Starting on PostgreSQL: one clear line for what an operator can fix (unreachable server, missing
 * pgvector), and migrations that several processes may start at once (advisory lock), on Debian's
 * multi-process server. Skips with a message where that server is not installed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openPgDb } from '../../src/platform/pgDb.js';
import { StartupError } from '../../src/platform/startupError.js';
import { openPostgresStorage } from '../../src/storage/postgres/index.js';
import { LIBRARY_MIGRATIONS, migrationFiles } from '../../src/storage/postgres/migrate.js';
import { freshSchema } from '../helpers/pglite.js';
import { postgresServer, postgresServerMissing } from '../helpers/postgresServer.js';

const test = suite('storage: postgres start-up');

async function startupError(promise: Promise<unknown>): Promise<StartupError> {
  try {
    await promise;
  } catch (err) {
    assert.instance(err, StartupError);
    return err as StartupError;
  }
  throw new Error('expected a StartupError');
}

test('an unreachable server: one line naming DATABASE_URL, no stack', async () => {
  const err = await startupError(openPostgresStorage('postgres://u:p@127.0.0.1:1/library'));
  assert.match(err.message, /cannot reach PostgreSQL at 127\.0\.0\.1:1\/library/);
  assert.match(err.message, /DATABASE_URL/);
  assert.not.match(err.message, /\n/);
});

const missing = postgresServerMissing();
if (missing) {
  console.log(`SKIP postgres start-up on a real server: ${missing}`);
} else {
  test('a server without pgvector refuses to start unless VECTOR_SEARCH=off; no table is made', async () => {
    const server = await postgresServer();
    if (server.vector) return; // TEST_DATABASE_URL with pgvector: nothing to refuse
    const schema = freshSchema('nov');
    const err = await startupError(openPostgresStorage(server.url, { schema }));
    assert.match(err.message, /lacks the vector extension: install pgvector .* or set VECTOR_SEARCH=off/);
    const db = openPgDb(server.url);
    try {
      const tables = await db.many(`SELECT 1 FROM information_schema.tables WHERE table_schema = $1`, [schema]);
      assert.is(tables.length, 0, 'nothing half-migrated');
    } finally {
      await db.close();
    }
    const storage = await openPostgresStorage(server.url, { schema, vectorSearch: false });
    assert.is(storage.vectorSearch, false);
    await storage.close();
  });

  test('several processes starting at once migrate once, one after the other (advisory lock)', async () => {
    const server = await postgresServer();
    const schema = freshSchema('race');
    const opened = await Promise.all(
      Array.from({ length: 4 }, () => openPostgresStorage(server.url, { schema, vectorSearch: server.vector })),
    );
    try {
      const rows = await opened[0].db.many<{ name: string }>(`SELECT name FROM schema_migrations ORDER BY name`);
      const expected = migrationFiles(LIBRARY_MIGRATIONS).map((f) => `library/${f}`);
      assert.equal(
        rows.map((r) => r.name).filter((n) => n.startsWith('library/')),
        expected,
      );
    } finally {
      await Promise.all(opened.map((s) => s.close()));
    }
  });
}

test.run();
