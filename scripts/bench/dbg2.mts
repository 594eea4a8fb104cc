import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { measure, fmtMs } from './harness.js';
const st = openSqliteStorage(process.argv[2]);
const db = st.db;
const collectionId = db.prepare(`SELECT id FROM collections LIMIT 1`).pluck().get() as string;
const root = collectionId.replace(/-/g, '');
const big = db.prepare(`SELECT path FROM media WHERE type='folder' AND name='Big folder'`).pluck().get() as string;
const q = (o: object) => ({ collectionId, path: root, recursive: false, types: null, createdFrom: null, createdBefore: null, tagFilters: null, tagValues: null, mediaId: null, clusterId: null, sortBy: 'createdAt' as const, sortDirection: 'desc' as const, limit: 10, offset: 0, ...o });
const quarter = { createdFrom: '2025-04-01T00:00:00.000Z', createdBefore: '2025-07-01T00:00:00.000Z' };
for (const [label, query] of [
  ['quarter+red root 0', q({ recursive: true, ...quarter, tagValues: ['red'] })],
  ['quarter+red root 1000', q({ recursive: true, ...quarter, tagValues: ['red'], offset: 1000 })],
  ['quarter big by name 1000', q({ path: big, recursive: true, ...quarter, sortBy: 'name', offset: 1000 })],
  ['one day + red', q({ recursive: true, createdFrom: '2025-04-01T00:00:00.000Z', createdBefore: '2025-04-02T00:00:00.000Z', tagValues: ['red'] })],
] as const) {
  const s = await measure(() => st.media.browse(query as never), { reps: 30 });
  console.log(label, fmtMs(s.p50), fmtMs(s.p99));
}
await st.close();
