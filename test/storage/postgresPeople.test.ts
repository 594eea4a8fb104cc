/** People on PostgreSQL (PGlite): the engine-neutral suite of test/features/faces/peopleSuite.ts. */
import { peopleSuite } from '../features/faces/peopleSuite.js';
import { pglite } from '../helpers/pglite.js';
import { postgresServer } from '../helpers/postgresServer.js';
import { openPgClusterLib } from './pgClusterLib.js';

const server = process.env.TEST_DATABASE_URL ? await postgresServer() : await pglite();

peopleSuite('postgres', async () => {
  const lib = await openPgClusterLib(server);
  return {
    ...lib,
    textSearch: async (q) => {
      const hits = await lib.s.indexes.text.search({ query: q, collectionIds: [lib.collId], limit: 100 });
      return [...new Set(hits.map((h) => h.mediaId))].sort();
    },
    reactivateObject: async (objectId) => {
      await lib.s.db.query(`UPDATE detected_objects SET status = 'active' WHERE id = $1`, [objectId]);
    },
  };
});
