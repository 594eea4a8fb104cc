/** People on SQLite: the engine-neutral suite of ./peopleSuite.ts. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { peopleSuite } from './peopleSuite.js';
import { openSqliteClusterLib } from './sqliteClusterLib.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lumen-people-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
let fileNo = 0;

peopleSuite('sqlite', async () => {
  const lib = await openSqliteClusterLib(path.join(tmp, `p${++fileNo}.db`));
  return {
    ...lib,
    textSearch: async (q) => {
      const hits = await lib.s.indexes.text.search({ query: q, collectionIds: [lib.collId], limit: 100 });
      return [...new Set(hits.map((h) => h.mediaId))].sort();
    },
    reactivateObject: async (objectId) => {
      lib.s.db.prepare(`UPDATE detected_objects SET status = 'active' WHERE id = ?`).run(objectId);
    },
  };
});
