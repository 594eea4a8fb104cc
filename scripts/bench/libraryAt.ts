/**
 * The library bench's read rows over an existing library file, ours beside the
 * query before #17: `npx tsx scripts/bench/libraryAt.ts <library.db>` (a
 * directory kept by `npm run bench -- --keep library`, or a copy of one). For
 * sizes whose fill through the app takes too long to repeat. Puts the pre-#17
 * listing indexes back for the baseline reads and drops them again before the
 * moves (a move pays only for ours; use a copy: the next run rebuilds them).
 * LIBRARY_AT_ONLY=moves skips the reads; LIBRARY_AT_ONLY=filters runs only the rows with tag or date filters.
 */
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import type { BrowseQuery } from '../../src/storage/types.js';
import { fmtMs, measure, type Stats } from './harness.js';
import { addLegacySchema, dropLegacySchema, legacyBrowse } from './libraryLegacy.js';
import { NO_FILTERS } from '../../src/storage/browseQuery.js';

const file = process.argv[2];
if (!file) throw new Error('usage: npx tsx scripts/bench/libraryAt.ts <library.db>');
const st = openSqliteStorage(file);
const db = st.db;
const folder = (name: string) =>
  db
    .prepare(`SELECT path FROM media WHERE type = 'folder' AND name = ? AND status = 'active'`)
    .pluck()
    .get(name) as string;
const collectionId = db.prepare(`SELECT id FROM collections LIMIT 1`).pluck().get() as string;
const root = collectionId.replace(/-/g, '');
const live = db
  .prepare(`SELECT count(*) FROM media WHERE status = 'active' AND is_current = 1`)
  .pluck()
  .get() as number;
const big = folder('Big folder');
const moving = folder('Moving folder');
const only = process.env.LIBRARY_AT_ONLY;
const reads = only !== 'moves';
console.log(`${live.toLocaleString('en')} live rows${reads ? '; adding the pre-#17 indexes' : ''}`);
if (reads) {
  addLegacySchema(db);
  db.exec('ANALYZE');
}
const legacy = legacyBrowse(db);
const q = (over: Partial<BrowseQuery>): BrowseQuery => ({
  collectionId,
  path: root,
  recursive: false,
  ...NO_FILTERS,
  sortBy: 'createdAt',
  sortDirection: 'desc',
  limit: 10,
  offset: 0,
  ...over,
});
const quarter = { createdFrom: '2025-04-01T00:00:00.000Z', createdBefore: '2025-07-01T00:00:00.000Z' };
const partDays = { createdFrom: '2025-04-01T06:30:00.000Z', createdBefore: '2025-07-01T18:00:00.000Z' };
const one = { colour: ['red', 'blue'] };
const three = { colour: ['red', 'blue'], subject: ['animal', 'person'], review: ['approved', 'to-check'] };
const rows: Array<[string, BrowseQuery]> = [
  ['one level, big folder, first page', q({ path: big })],
  ['one level, big folder, offset 50,000', q({ path: big, offset: 50_000 })],
  ...(['name', 'type', 'description', 'prompt'] as const).map((sortBy): [string, BrowseQuery] => [
    `one level, big folder, by ${sortBy} asc, offset 50,000`,
    q({ path: big, sortBy, sortDirection: 'asc', offset: 50_000 }),
  ]),
  ['root recursive, first page', q({ recursive: true })],
  ['root recursive, offset 50,000', q({ recursive: true, offset: 50_000 })],
  ...[0, 1000, 5000].map((offset): [string, BrowseQuery] => [
    `subtree (10,000), offset ${offset}`,
    q({ path: moving, recursive: true, offset }),
  ]),
  ...[0, 1000, 10_000, 50_000].map((offset): [string, BrowseQuery] => [
    `big folder recursive, offset ${offset}`,
    q({ path: big, recursive: true, offset }),
  ]),
  ...(['name', 'createdAt', 'type', 'description', 'prompt'] as const).flatMap((sortBy) =>
    (['asc', 'desc'] as const).map((sortDirection): [string, BrowseQuery] => [
      `big folder recursive, by ${sortBy} ${sortDirection}, offset 10,000`,
      q({ path: big, recursive: true, sortBy, sortDirection, offset: 10_000 }),
    ]),
  ),
  ['big folder recursive, type=video, offset 1,000', q({ path: big, recursive: true, types: ['video'], offset: 1000 })],
  ...[0, 1000].flatMap((offset): Array<[string, BrowseQuery]> => [
    [
      `tagFilters one group, big folder recursive, by name, offset ${offset}`,
      q({ path: big, recursive: true, tagFilters: one, sortBy: 'name', sortDirection: 'asc', offset }),
    ],
    [
      `tagFilters three groups, big folder recursive, by name, offset ${offset}`,
      q({ path: big, recursive: true, tagFilters: three, sortBy: 'name', sortDirection: 'asc', offset }),
    ],
    [
      `Apr–Jun + tags=red, root recursive, offset ${offset}`,
      q({ recursive: true, ...quarter, tagValues: ['red'], offset }),
    ],
  ]),
  // Deeper and in the default order: the walk would step over tens of thousands of rows (rankBlocks.ts).
  [
    'tagFilters three groups, big folder recursive, by createdAt desc, offset 1,000',
    q({ path: big, recursive: true, tagFilters: three, offset: 1000 }),
  ],
  [
    'tagFilters three groups, big folder recursive, by name, offset 5,000',
    q({ path: big, recursive: true, tagFilters: three, sortBy: 'name', sortDirection: 'asc', offset: 5000 }),
  ],
  [
    'tagFilters one group, big folder recursive, by takenAt desc, offset 50,000',
    q({ path: big, recursive: true, tagFilters: one, sortBy: 'takenAt', offset: 50_000 }),
  ],
  [
    'Apr–Jun, big folder recursive, by name desc, offset 1,000',
    q({ path: big, recursive: true, ...quarter, sortBy: 'name', offset: 1000 }),
  ],
  // Bounds inside a day (an API client's timestamps).
  [
    'Apr 1 06:30 – Jul 1 18:00 + tags=red, root recursive, offset 1,000',
    q({ recursive: true, ...partDays, tagValues: ['red'], offset: 1000 }),
  ],
  [
    'Apr 1 06:30 – Jul 1 18:00, big folder recursive, by name desc, offset 1,000',
    q({ path: big, recursive: true, ...partDays, sortBy: 'name', offset: 1000 }),
  ],
];
const fmt = (s: Stats) => `${fmtMs(s.p50)} / ${fmtMs(s.p99)}`;
// Each run of ours as the first visit of its page: a write (to a temporary table) makes the store forget the
// page cursors the run before left (src/storage/sqlite/pageCursors.ts); the paging rows below keep them.
db.exec(`CREATE TEMP TABLE IF NOT EXISTS bench_tick (n INTEGER)`);
const tick = db.prepare(`INSERT INTO temp.bench_tick VALUES (1)`);
const forgetCursors = () => tick.run();
console.log('| operation | ours p50 / p99 | before p50 / p99 | same answer |');
console.log('| --- | ---: | ---: | --- |');
const filtered = (query: BrowseQuery) => query.tagFilters || query.tagValues || query.createdFrom;
if (reads) {
  // The first deep filtered listing after start-up builds the rank of its sort order (rankBlocks.ts).
  const deep = q({ path: big, recursive: true, tagFilters: three, sortBy: 'name', sortDirection: 'asc', offset: 1000 });
  const t0 = performance.now();
  await st.media.browse(deep);
  console.log(`first deep filtered listing by name after start-up (builds the rank): ${fmtMs(performance.now() - t0)}`);
  for (const [label, query] of rows) {
    if (only === 'filters' && !filtered(query)) continue;
    const mine = await st.media.browse(query);
    const theirs = legacy.browse(query);
    const same =
      mine.total === theirs.total && mine.items.map((m) => m.id).join() === theirs.items.map((m) => m.id).join();
    const ours = await measure(() => st.media.browse(query), {
      reps: 100,
      budgetMs: 10_000,
      minReps: 20,
      before: forgetCursors,
    });
    const base = await measure(() => legacy.browse(query), { reps: 100, warmup: 1, budgetMs: 5_000, minReps: 10 });
    console.log(
      `| ${label} (total ${mine.total.toLocaleString('en')}) | ${fmt(ours)} | ${fmt(base)} | ${same ? 'yes' : 'NO'} |`,
    );
  }
  // After a rename each time: the rank places the renamed item again from rank_log before counting.
  const renamed = db
    .prepare(`SELECT id, name FROM media WHERE parent_path LIKE ? AND type = 'image' LIMIT 1`)
    .get(`${big}%`) as { id: string; name: string };
  const rename = db.prepare(`UPDATE media SET name = ? WHERE id = ?`);
  let renames = 0;
  const afterRename = await measure(() => st.media.browse(deep), {
    reps: 100,
    budgetMs: 10_000,
    minReps: 20,
    before: () => rename.run(`${renamed.name}-${++renames % 2}`, renamed.id),
  });
  rename.run(renamed.name, renamed.id);
  console.log(`| tagFilters three groups, by name, offset 1,000, after a rename each time | ${fmt(afterRename)} | | |`);
  // Paging on from offset 1,000 as infinite scroll does: each run reads the page after the previous run's.
  const paging: Array<[string, BrowseQuery]> = [
    [
      'tagFilters three groups, big folder recursive, by name',
      q({ path: big, recursive: true, tagFilters: three, sortBy: 'name', sortDirection: 'asc', offset: 1000 }),
    ],
    ['Apr–Jun + tags=red, root recursive', q({ recursive: true, ...quarter, tagValues: ['red'], offset: 1000 })],
    [
      'Apr–Jun, big folder recursive, by name desc',
      q({ path: big, recursive: true, ...quarter, sortBy: 'name', offset: 1000 }),
    ],
  ];
  for (const [label, query] of only === 'filters' ? [] : paging) {
    const at = (i: number) => ({ ...query, offset: query.offset + (i + 1) * query.limit });
    forgetCursors();
    const ours = await measure((i) => st.media.browse(at(i)), { reps: 100, warmup: 1 });
    const base = await measure((i) => legacy.browse(at(Math.max(0, i))), {
      reps: 20,
      warmup: 1,
      budgetMs: 5_000,
      minReps: 5,
    });
    console.log(`| ${label}, paging on from offset 1,000 | ${fmt(ours)} | ${fmt(base)} | |`);
  }
  const tops = db
    .prepare(`SELECT path FROM media WHERE type = 'folder' AND parent_path = ? AND status = 'active' LIMIT 10`)
    .pluck()
    .all(root) as string[];
  const ours = await measure(() => st.media.folderSummaries(tops), { reps: 100 });
  const base = await measure(() => legacy.folderSummaries(tops), { reps: 20, warmup: 1, budgetMs: 5_000, minReps: 5 });
  console.log(`| folderSummaries of 10 top folders | ${fmt(ours)} | ${fmt(base)} | |`);
}
if (only === 'filters') {
  await st.close();
  process.exit(0);
}
// Moves through the store, there and back (the subtree's total checked after each), on our schema alone: the
// baseline's indexes on media would otherwise be rewritten for every moved row.
dropLegacySchema(db);
const userId = db.prepare(`SELECT id FROM users LIMIT 1`).pluck().get() as string;
const dest = folder('Folder 3');
for (const name of ['Moving folder', 'Large moving folder']) {
  const id = db.prepare(`SELECT id FROM media WHERE type = 'folder' AND name = ?`).pluck().get(name) as string;
  const beneath = (await st.media.browse(q({ path: folder(name), recursive: true, limit: 1 }))).total;
  const times: number[] = [];
  for (const to of [dest, root, dest, root]) {
    const t0 = performance.now();
    const moved = await st.media.move(id, to, userId);
    times.push(performance.now() - t0);
    const after = (await st.media.browse(q({ path: moved, recursive: true, limit: 1 }))).total;
    if (after !== beneath) throw new Error(`${name}: ${after} beneath after a move, ${beneath} before`);
  }
  console.log(
    `| move ${name} (${beneath.toLocaleString('en')} beneath), there and back twice | ${times.map((t) => fmtMs(t)).join(', ')} | | |`,
  );
}
await st.close();
