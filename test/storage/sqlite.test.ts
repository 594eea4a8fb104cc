/**
 * The shared storage contract (./suite.ts) against the SQLite store, one fresh
 * database file per test, plus checks only SQLite has: migrations and query plans.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newUuid, nowIso } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import type { BrowseQuery } from '../../src/storage/types.js';
import { browseWhere } from '../../src/storage/sqlite/browse.js';
import type { Db } from '../../src/storage/sqlite/database.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { migrate } from '../../src/storage/sqlite/migrate.js';
import { storageSuite } from './suite.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'storage-sqlite-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const tempFile = () => path.join(dir, `t${++n}.db`);

storageSuite('sqlite', async () => openSqliteStorage(tempFile()));

// ---------------------------------------------------------------- SQLite only

const test = suite('storage: sqlite only');

test('migrations are idempotent: opening an existing file applies nothing and keeps the data', async () => {
  const file = tempFile();
  const first = openSqliteStorage(file);
  const user = await first.accounts.createUser({
    id: newUuid(),
    email: 'a@example.com',
    name: 'A',
    createdAt: nowIso(),
  });
  await first.accounts.setSettingIfAbsent('k', 'v');
  await first.close();

  const second = openSqliteStorage(file);
  try {
    assert.equal(await second.accounts.getUser(user.id), user);
    assert.is(await second.accounts.getSetting('k'), 'v');
    assert.equal(migrate(second.db), [], 'nothing left to apply');
    const recorded = second.db.prepare(`SELECT name FROM schema_migrations ORDER BY name`).pluck().all() as string[];
    const files = readdirSync(path.join(import.meta.dirname, '../../src/storage/sqlite/migrations'))
      .filter((f) => /^\d+_.*\.sql$/.test(f))
      .sort();
    assert.equal(recorded, files, 'each migration recorded once');
  } finally {
    await second.close();
  }
});

/** The plan's detail lines. */
const planOf = (db: Db, sql: string, params: unknown[]): string[] =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail);

/** Lines that read the media table without any index. */
const fullScans = (plan: string[]) =>
  plan.filter((d) => /^SCAN (m|media)\b/.test(d) && !/USING (COVERING )?INDEX/.test(d));

const COLL = newUuid();
const ROOT = COLL.replace(/-/g, '');
const FOLDER = `${ROOT}.${'ab'.repeat(16)}`;
const q = (over: Partial<BrowseQuery>): BrowseQuery => ({
  collectionId: COLL,
  path: ROOT,
  recursive: false,
  types: null,
  createdFrom: null,
  createdBefore: null,
  tagFilters: null,
  tagValues: null,
  mediaId: null,
  clusterId: null,
  sortBy: 'createdAt',
  sortDirection: 'desc',
  limit: 50,
  offset: 0,
  ...over,
});
/** The two statements browse runs for a query (see sqliteBrowse). */
function browsePlans(db: Db, query: BrowseQuery): { list: string[]; count: string[] } {
  const { where, params } = browseWhere(query);
  return {
    list: planOf(db, `SELECT m.* FROM media m WHERE ${where} ORDER BY m.created_at DESC, m.id DESC LIMIT ? OFFSET ?`, [
      ...params,
      50,
      0,
    ]),
    count: planOf(db, `SELECT count(*) FROM media m WHERE ${where}`, params),
  };
}

let store: Storage & { db: Db };
test.before.each(() => {
  store = openSqliteStorage(tempFile());
});
test.after.each(async () => {
  await store.close();
});

test('query plans: no browse reads the media table without an index', () => {
  const queries: Array<[string, BrowseQuery]> = [
    ['one level', q({ path: FOLDER })],
    ['one level by name', q({ path: FOLDER, sortBy: 'name', sortDirection: 'asc' })],
    ['subtree', q({ path: FOLDER, recursive: true, types: ['image', 'video'] })],
    ['whole collection', q({ recursive: true })],
    ['tag filter', q({ recursive: true, tagFilters: { color: ['red', 'blue'], size: ['big'] } })],
    ['tag values', q({ recursive: true, tagValues: ['red'] })],
  ];
  for (const [label, query] of queries) {
    const { list, count } = browsePlans(store.db, query);
    assert.equal(fullScans(list), [], `${label} listing: ${list.join(' | ')}`);
    assert.equal(fullScans(count), [], `${label} count: ${count.join(' | ')}`);
  }
});

test('query plans: the tag filter searches the media_tags index', () => {
  const { list, count } = browsePlans(
    store.db,
    q({ path: FOLDER, tagFilters: { color: ['red', 'blue'], size: ['big'] } }),
  );
  for (const plan of [list, count]) {
    // Each candidate is checked by the tag table's primary key (media_id, grp, value): no materialised id list.
    assert.ok(
      plan.some((d) => /^SEARCH t (EXISTS )?USING PRIMARY KEY \(media_id=\? AND grp=\? AND value=\?\)/.test(d)),
      plan.join(' | '),
    );
    assert.equal(fullScans(plan), []);
    assert.not.ok(
      plan.some((d) => /^SCAN media_tags/.test(d)),
      plan.join(' | '),
    );
  }
  const legacy = browsePlans(store.db, q({ recursive: true, tagValues: ['red', 'big'] })).list;
  assert.ok(
    legacy.some((d) => /^SEARCH t (EXISTS )?USING PRIMARY KEY \(media_id=\?/.test(d)),
    legacy.join(' | '),
  );
  assert.equal(fullScans(legacy), []);
});

test('query plans: the folder summary count is a path range on an index', () => {
  // The statement folderSummaries runs per folder (src/storage/sqlite/browse.ts, countInSubtree).
  const plan = planOf(
    store.db,
    `SELECT count(*) FROM media WHERE status = 'active' AND is_current = 1 AND path > ? AND path < ? AND type IN ('image', 'video')`,
    [`${FOLDER}.`, `${FOLDER}/`],
  );
  assert.ok(
    plan.some((d) => /^SEARCH media USING (COVERING )?INDEX \w+ \(path>\? AND path<\?\)/.test(d)),
    plan.join(' | '),
  );
  assert.equal(fullScans(plan), []);
});

// Without planner statistics, a plain `dataset_id = ?` would lure SQLite onto the collection-wide index
// and walk every live row of the collection; a folder's listing must use parent_path or the path range.
test('query plans: one-level listing searches by parent_path', () => {
  const { list, count } = browsePlans(store.db, q({ path: FOLDER }));
  assert.ok(
    list.some((d) => /^SEARCH m USING (COVERING )?INDEX media_live_children_\w+ \(parent_path=\?/.test(d)),
    `listing: ${list.join(' | ')}`,
  );
  assert.ok(
    count.some((d) => /^SEARCH m USING (COVERING )?INDEX \w+ \(parent_path=\?/.test(d)),
    `count: ${count.join(' | ')}`,
  );
});

test('query plans: a recursive folder listing and its count use the path range', () => {
  const { list, count } = browsePlans(store.db, q({ path: FOLDER, recursive: true }));
  assert.ok(
    list.some((d) => /^SEARCH m USING (COVERING )?INDEX \w+ \(path>\? AND path<\?\)/.test(d)),
    `listing: ${list.join(' | ')}`,
  );
  assert.ok(
    count.some((d) => /^SEARCH m USING (COVERING )?INDEX \w+ \(path>\? AND path<\?\)/.test(d)),
    `count: ${count.join(' | ')}`,
  );
});

test('query plans: the rendition backfill, the sweep of renditions and a stream read each search an index', () => {
  // The statements of renditionStore.ts (itemsLackingRenditions), mediaReads.ts (referencedBlobKeys) and
  // eventLog.ts (after).
  const lacking = planOf(
    store.db,
    `SELECT DISTINCT f.media_id FROM frames f JOIN media m ON m.id = f.media_id
     WHERE f.thumbnail_key IS NULL AND f.status = 'active' AND f.media_id > ?
       AND m.status = 'active' AND m.processing_status IN ('ready', 'failed')
     ORDER BY f.media_id LIMIT ?`,
    ['', 10],
  );
  assert.ok(
    lacking.some((d) => /^SEARCH f USING INDEX frames_without_renditions \(media_id>\?\)/.test(d)),
    lacking.join(' | '),
  );
  for (const column of ['thumbnail_key', 'preview_key']) {
    const plan = planOf(store.db, `SELECT ${column} FROM frames WHERE ${column} IN (SELECT value FROM json_each(?))`, [
      '[]',
    ]);
    assert.ok(
      plan.some((d) => new RegExp(`^SEARCH frames USING COVERING INDEX frames_\\w+ \\(${column}=\\?\\)`).test(d)),
      plan.join(' | '),
    );
  }
  const after = planOf(
    store.db,
    `SELECT * FROM events WHERE organization_id = ? AND id > ?
       AND (? IS NULL OR dataset_id = ? OR dataset_id IS NULL) ORDER BY id LIMIT ?`,
    ['o', 0, null, null, 200],
  );
  assert.ok(
    after.some((d) => /^SEARCH events USING INDEX events_by_org \(organization_id=\? AND id>\?\)/.test(d)),
    after.join(' | '),
  );
});

test.run();
