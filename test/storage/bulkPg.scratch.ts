import { openPostgresStorage } from '../../src/storage/postgres/index.js';
import { freshSchema, pglite } from '../helpers/pglite.js';
import { bulkSuite } from './bulkSuite.js';
const server = await pglite();
bulkSuite('postgres', () => openPostgresStorage(server.url, { schema: freshSchema(), vectorSearch: server.vector }));
