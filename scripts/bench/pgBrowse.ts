/**
 * Browse on PostgreSQL beside SQLite over the same library: the library bench's shape written by
 * libraryFill.ts into an SQLite file, copied row for row (media, media_tags) into a fresh PostgreSQL
 * schema (PGlite, TEST_DATABASE_URL or --debian), then each listing timed through the Storage interface on both.
 *
 *   npx tsx scripts/bench/libraryFill.ts /tmp/lib.db 100000
 *   npx tsx scripts/bench/pgBrowse.ts /tmp/lib.db [--runs 15] [--debian]
 *
 * --debian: on Debian's PostgreSQL server (test/helpers/postgresServer.ts) instead of PGlite.
 *
 * PGlite is PostgreSQL in WebAssembly, one backend behind a socket: its figures are an upper bound for a
 * real server's on the same plans (compare with TEST_DATABASE_URL pointing at one).
 */
import Database from 'better-sqlite3';
import { pathLabel } from '../../src/platform/ids.js';
import { openPostgresStorage } from '../../src/storage/postgres/index.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import type { Storage } from '../../src/storage/storage.js';
import type { BrowseQuery } from '../../src/storage/types.js';
import { freshSchema, pglite } from '../../test/helpers/pglite.js';
import { postgresServer } from '../../test/helpers/postgresServer.js';
import { NO_FILTERS } from '../../src/storage/browseQuery.js';

const file = process.argv[2];
if (!file) throw new Error('usage: npx tsx scripts/bench/pgBrowse.ts <library.db made by libraryFill.ts> [--runs N]');
const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 15;

const raw = new Database(file, { readonly: true });
const coll = raw.prepare(`SELECT * FROM collections LIMIT 1`).get() as Record<string, string>;
const org = raw.prepare(`SELECT * FROM organizations WHERE id = ?`).get(coll.organization_id) as Record<string, string>;
const user = raw.prepare(`SELECT * FROM users LIMIT 1`).get() as Record<string, string>;

const url = process.argv.includes('--debian')
  ? (await postgresServer()).url
  : (process.env.TEST_DATABASE_URL ?? (await pglite()).url);
const pg = await openPostgresStorage(url, { schema: freshSchema('bench'), vectorSearch: false });
await pg.accounts.createUser({ id: user.id, email: user.email, name: user.name, createdAt: user.created_at });
await pg.accounts.createOrganization({ id: org.id, name: org.name, slug: org.slug }, user.id);
await pg.collections.create({
  id: coll.id,
  organizationId: coll.organization_id,
  name: coll.name,
  icon: null,
  type: 'media',
  createdAt: coll.created_at,
  updatedAt: coll.updated_at,
  createdById: coll.created_by,
});

const COLUMNS = [
  'id',
  'dataset_id',
  'organization_id',
  'path',
  'parent_path',
  'type',
  'name',
  'blob_key',
  'size_bytes',
  'metadata',
  'description',
  'processing_status',
  'root_id',
  'created_at',
  'updated_at',
  'created_by',
  'taken_at',
];
const TYPES = [
  'text',
  'text',
  'text',
  'ltree',
  'ltree',
  'text',
  'text',
  'text',
  'int8',
  'json',
  'text',
  'text',
  'text',
];
const TIMES = ['timestamptz', 'timestamptz', 'text', 'text'];

/** Copies every media row and tag row, in rowid order, a chunk per statement (unnest of column arrays). */
async function copy(): Promise<number> {
  const rows = raw
    .prepare(`SELECT ${COLUMNS.join(', ')} FROM media ORDER BY rowid`)
    .raw()
    .all() as unknown[][];
  const types = [...TYPES, ...TIMES];
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = rows.slice(i, i + 5000);
    const arrays = COLUMNS.map((_, c) => chunk.map((r) => r[c]));
    await pg.db.query(
      `INSERT INTO media (${COLUMNS.join(', ')}, is_current, status)
       SELECT ${COLUMNS.map((c, k) => `${c}::${types[k]}`).join(', ')}, true, 'active'
       FROM unnest(${COLUMNS.map((_, k) => `$${k + 1}::text[]`).join(', ')}) AS t(${COLUMNS.join(', ')})`,
      arrays,
    );
  }
  const tags = raw.prepare(`SELECT media_id, dataset_id, grp, value FROM media_tags`).raw().all() as string[][];
  for (let i = 0; i < tags.length; i += 20000) {
    const chunk = tags.slice(i, i + 20000);
    await pg.db.query(
      `INSERT INTO media_tags (media_id, dataset_id, grp, value) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
      [0, 1, 2, 3].map((c) => chunk.map((r) => r[c])),
    );
  }
  // VACUUM as autovacuum would have by then: the visibility map lets counts read the indexes only.
  await pg.db.query('VACUUM ANALYZE media, media_tags');
  return rows.length;
}

const started = performance.now();
const copied = await copy();
console.log(`copied ${copied.toLocaleString('en')} rows in ${((performance.now() - started) / 1000).toFixed(0)} s`);

const root = pathLabel(coll.id);
const big = (raw.prepare(`SELECT path FROM media WHERE name = 'Big folder'`).get() as { path: string }).path;
const base: BrowseQuery = {
  collectionId: coll.id,
  path: root,
  recursive: false,
  ...NO_FILTERS,
  sortBy: 'createdAt',
  sortDirection: 'desc',
  limit: 100,
  offset: 0,
};
const scenarios: Array<[string, Partial<BrowseQuery>]> = [
  ['Big folder, one level, newest first, first page', { path: big }],
  ['Big folder, one level, by name, first page', { path: big, sortBy: 'name', sortDirection: 'asc' }],
  ['Big folder, one level, by name, offset 30,000', { path: big, sortBy: 'name', sortDirection: 'asc', offset: 30000 }],
  ['whole collection, newest first, first page', { recursive: true }],
  [
    'whole collection, by name, offset 50,000',
    { recursive: true, sortBy: 'name', sortDirection: 'asc', offset: 50000 },
  ],
  ['whole collection, colour red, by name', { recursive: true, sortBy: 'name', tagFilters: { colour: ['red'] } }],
  [
    'whole collection, review rejected + subject food, newest',
    { recursive: true, tagFilters: { review: ['rejected'], subject: ['food'] } },
  ],
  [
    'whole collection, March 2025, by name',
    {
      recursive: true,
      sortBy: 'name',
      createdFrom: '2025-03-01T00:00:00.000Z',
      createdBefore: '2025-04-01T00:00:00.000Z',
    },
  ],
  ['whole collection, by description (nullable)', { recursive: true, sortBy: 'description' }],
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function time(fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

const lite = openSqliteStorage(file);
const engines: Array<[string, Storage]> = [
  ['SQLite', lite],
  ['PostgreSQL', pg],
];
console.log(`\n| listing (limit 100) | total | SQLite ms | PostgreSQL ms |\n| --- | ---: | ---: | ---: |`);
for (const [name, over] of scenarios) {
  const q = { ...base, ...over };
  const [a, b] = [await lite.media.browse(q), await pg.media.browse(q)];
  if (a.total !== b.total || a.items.map((m) => m.id).join() !== b.items.map((m) => m.id).join()) {
    throw new Error(`${name}: the engines disagree (${a.total} vs ${b.total})`);
  }
  const ms = [];
  for (const [, s] of engines) ms.push(await time(() => s.media.browse(q)));
  console.log(`| ${name} | ${a.total.toLocaleString('en')} | ${ms[0].toFixed(1)} | ${ms[1].toFixed(1)} |`);
}
const tops = raw
  .prepare(`SELECT path FROM media WHERE parent_path = ? AND type = 'folder' LIMIT 20`)
  .pluck()
  .all(root) as string[];
const others: Array<[string, (s: Storage) => Promise<unknown>]> = [
  ['folderSummaries of the 20 top folders', (s) => s.media.folderSummaries(tops)],
  ['childFolders of the root', (s) => s.media.childFolders(root, { limit: 100, offset: 0 })],
  ['tagGroups', (s) => s.media.tagGroups(coll.id)],
];
for (const [name, fn] of others) {
  const ms = [];
  for (const [, s] of engines) ms.push(await time(() => fn(s)));
  console.log(`| ${name} | | ${ms[0].toFixed(1)} | ${ms[1].toFixed(1)} |`);
}
await lite.close();
await pg.close();
process.exit(0);
