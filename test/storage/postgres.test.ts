/**
 * The shared storage contract (./suite.ts) against the PostgreSQL store on PGlite (real PostgreSQL in
 * WebAssembly, with pgvector and ltree): one schema per test, migrated from scratch.
 * With TEST_DATABASE_URL set, against that server instead.
 */
import { openPostgresStorage } from '../../src/storage/postgres/index.js';
import { freshSchema, pglite } from '../helpers/pglite.js';
import { postgresServer } from '../helpers/postgresServer.js';
import { importSuite } from './importSuite.js';
import { bulkSuite } from './bulkSuite.js';
import { bulkUndoSuite } from './bulkUndoSuite.js';
import { clusterDismissalSuite } from './clusterDismissalSuite.js';
import { duplicatesSuite } from './duplicatesSuite.js';
import { memberSuite } from './memberSuite.js';
import { storageSuite } from './suite.js';

const server = process.env.TEST_DATABASE_URL ? await postgresServer() : await pglite();
const open = () => openPostgresStorage(server.url, { schema: freshSchema(), vectorSearch: server.vector });

storageSuite('postgres', open);
importSuite('postgres', open);
bulkSuite('postgres', open);
bulkUndoSuite('postgres', open);
clusterDismissalSuite('postgres', open);
duplicatesSuite('postgres', open);
memberSuite('postgres', open);
