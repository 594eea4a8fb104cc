/**
 * Face clusters on PostgreSQL: the engine-neutral cluster store suite on PGlite (one schema per test).
 * Concurrency (two stores assigning at once) needs a real server: test/storage/postgresClusterRace.test.ts.
 */
import { clusterStoreSuite } from '../features/faces/clusterStoreSuite.js';
import { pglite } from '../helpers/pglite.js';
import { postgresServer } from '../helpers/postgresServer.js';
import { openPgClusterLib } from './pgClusterLib.js';

const server = process.env.TEST_DATABASE_URL ? await postgresServer() : await pglite();

clusterStoreSuite('postgres', () => openPgClusterLib(server));
