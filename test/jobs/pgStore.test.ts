/**
 * The PostgreSQL job store against the engine-neutral contract (./storeSuite.ts): on PGlite (always), then
 * on Debian's PostgreSQL server when it is installed (skipped with a message when not). Each store gets a
 * schema of its own, migrated from scratch. The concurrency proofs PGlite cannot give: ./pgConcurrency.test.ts.
 */
import { openPgDb } from '../../src/platform/pgDb.js';
import { migratePg, LIBRARY_MIGRATIONS } from '../../src/storage/postgres/migrate.js';
import { pgJobStore } from '../../src/storage/postgres/jobStore.js';
import { freshSchema, pglite, type TestPostgres } from '../helpers/pglite.js';
import { postgresServer, postgresServerMissing } from '../helpers/postgresServer.js';
import { jobStoreSuite, type OpenJobStore } from './storeSuite.js';

const opener =
  (server: TestPostgres): OpenJobStore =>
  async () => {
    const db = openPgDb(server.url, { schema: freshSchema('jobs'), max: 4 });
    await migratePg(db, [LIBRARY_MIGRATIONS]);
    return { jobs: pgJobStore(db), close: () => db.close() };
  };

jobStoreSuite('postgres (PGlite)', opener(await pglite()));

const missing = postgresServerMissing();
if (missing) console.log(`SKIP jobs: postgres (Debian server) store: ${missing}`);
else jobStoreSuite('postgres (Debian server)', opener(await postgresServer()));
