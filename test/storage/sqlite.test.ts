/**
 * The shared storage contract (./suite.ts) against the SQLite store, one fresh
 * database file per test, plus checks only SQLite has: migrations and query plans.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso } from '../../src/platform/ids.js';
import type { BrowseQuery } from '../../src/storage/types.js';
import { browseSuite } from './browseSuite.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/storage/sqlite/index.js';
import { sqliteMediaStore } from '../../src/storage/sqlite/mediaStore.js';
import { sqliteEventLog } from '../../src/storage/sqlite/eventLog.js';
import type { Db } from '../../src/storage/sqlite/database.js';
import { sqliteTextIndexWriter } from '../../src/index/text/sqlite/writer.js';
import { traceSql, type TracedStatement } from '../../scripts/bench/sqlTrace.js';
import { migrate } from '../../src/storage/sqlite/migrate.js';
import { registerBitmapFunctions } from '../../src/storage/sqlite/bitmapFunctions.js';
import { storageSuite } from './suite.js';
import { importSuite } from './importSuite.js';
import { bulkSuite } from './bulkSuite.js';
import { bulkUndoSuite } from './bulkUndoSuite.js';
import { clusterDismissalSuite } from './clusterDismissalSuite.js';
import { duplicatesSuite } from './duplicatesSuite.js';
import { memberSuite } from './memberSuite.js';
import { NO_FILTERS } from '../../src/storage/browseQuery.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'storage-sqlite-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const tempFile = () => path.join(dir, `t${++n}.db`);

storageSuite('sqlite', async () => openSqliteStorage(tempFile()));
importSuite('sqlite', async () => openSqliteStorage(tempFile()));
bulkSuite('sqlite', async () => openSqliteStorage(tempFile()));
bulkUndoSuite('sqlite', async () => openSqliteStorage(tempFile()));
clusterDismissalSuite('sqlite', async () => openSqliteStorage(tempFile()));
duplicatesSuite('sqlite', async () => openSqliteStorage(tempFile()));
memberSuite('sqlite', async () => openSqliteStorage(tempFile()));
// Every filtered walk that can start at a block of a ranked sort order does (rankBlocks.ts), one item a block.
browseSuite('sqlite, walks started by ranks', async () =>
  openSqliteStorage(tempFile(), { browse: { alwaysLeap: true } }),
);

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

test('migration 019 fills taken_at from the stored EXIF, and media_scope with the capture time or createdAt', () => {
  const db = new Database(tempFile());
  sqliteVec.load(db);
  registerBitmapFunctions(db);
  db.exec(`CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`);
  const dirOf = path.join(import.meta.dirname, '../../src/storage/sqlite/migrations');
  for (const file of readdirSync(dirOf)
    .filter((f) => /^\d+_.*\.sql$/.test(f) && f < '019')
    .sort()) {
    db.exec(readFileSync(path.join(dirOf, file), 'utf8'));
    db.prepare(`INSERT INTO schema_migrations VALUES (?, 'x')`).run(file);
  }
  const coll = newUuid();
  const root = coll.replace(/-/g, '');
  db.exec(`INSERT INTO users (id, email, name, created_at) VALUES ('u', 'u@example.com', 'U', 'x');
    INSERT INTO organizations (id, name, slug, created_at) VALUES ('o', 'O', 'o', 'x');
    INSERT INTO collections (id, organization_id, name, created_at, updated_at, created_by)
      VALUES ('${coll}', 'o', 'C', 'x', 'x', 'u');`);
  const insert = db.prepare(
    `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, exif, processing_status,
       root_id, created_at, updated_at, created_by)
     VALUES (@id, '${coll}', 'o', '${root}.' || @id, '${root}', @type, @id, @exif, 'ready', @id, @at, @at, 'u')`,
  );
  const rows = {
    offset: { DateTimeOriginal: '2008-10-22T16:28:39.000Z', OffsetTimeOriginal: '+02:00', SubSecTimeOriginal: '55' },
    zeroed: { DateTimeOriginal: '1899-11-30T00:00:00.000Z', DateTimeDigitized: '2015-02-09T22:47:44.000Z' },
    future: { DateTimeOriginal: '2999-01-01T00:00:00.000Z' },
    none: { ExposureTime: 0.01 },
  };
  const ids: Record<string, string> = {};
  const at = '2024-01-01T00:00:00.000Z';
  for (const [label, photo] of Object.entries(rows)) {
    ids[label] = newMediaId();
    insert.run({ id: ids[label], type: 'image', exif: JSON.stringify({ tags: {}, Photo: photo }), at });
  }
  ids.broken = newMediaId();
  insert.run({ id: ids.broken, type: 'image', exif: '{not json', at });
  ids.video = newMediaId();
  insert.run({ id: ids.video, type: 'video', exif: JSON.stringify({ Photo: rows.offset }), at });
  assert.is(migrate(db)[0], '019_taken_at.sql');
  const taken = (id: string) => db.prepare(`SELECT taken_at FROM media WHERE id = ?`).pluck().get(id);
  const scoped = (id: string) =>
    db.prepare(`SELECT DISTINCT taken_at FROM media_scope WHERE item = unhex(?)`).pluck().all(id);
  assert.is(taken(ids.offset), '2008-10-22T14:28:39.550Z', 'offset applied, sub-seconds kept');
  assert.is(taken(ids.zeroed), '2015-02-09T22:47:44.000Z', 'a zeroed original falls back to the digitized time');
  for (const label of ['future', 'none', 'broken', 'video']) assert.is(taken(ids[label]), null, label);
  assert.equal(scoped(ids.offset), ['2008-10-22T14:28:39.550Z']);
  assert.equal(scoped(ids.none), [at], 'without a capture time: createdAt');
  db.close();
});

/** The plan's detail lines. */
const planOf = (db: Db, sql: string, params: unknown[]): string[] =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail);

/** Lines that read a table without any index. */
const fullScans = (plan: string[]) =>
  plan.filter((d) => /^\s*SCAN (m|s|media|media_scope|media_tags)\b/.test(d) && !/USING (COVERING )?INDEX/.test(d));

const COLL = newUuid();
const ROOT = COLL.replace(/-/g, '');
const q = (over: Partial<BrowseQuery>): BrowseQuery => ({
  collectionId: COLL,
  path: ROOT,
  recursive: false,
  ...NO_FILTERS,
  sortBy: 'createdAt',
  sortDirection: 'desc',
  limit: 50,
  offset: 0,
  ...over,
});

let store: SqliteStorage;
let storeFile: string;
test.before.each(() => {
  storeFile = tempFile();
  store = openSqliteStorage(storeFile);
});
test.after.each(async () => {
  await store.close();
});

/** A folder with `n` images in it (with tags), written through the store, for the plans to have rows to read. */
async function library(n: number): Promise<{ folder: string }> {
  const userId = newUuid();
  await store.accounts.createUser({ id: userId, email: 'p@example.com', name: 'P', createdAt: nowIso() });
  const orgId = newUuid();
  await store.accounts.createOrganization({ id: orgId, name: 'P', slug: 'p' }, userId);
  const at = nowIso();
  await store.collections.create({
    id: COLL,
    organizationId: orgId,
    name: 'C',
    icon: null,
    type: 'media',
    createdAt: at,
    updatedAt: at,
    createdById: userId,
  });
  const base = { collectionId: COLL, organizationId: orgId, createdById: userId, mimeType: null, width: null };
  const common = { ...base, height: null, duration: null, sizeBytes: 0, exif: {}, processingStatus: 'ready' as const };
  const folderId = newMediaId();
  await store.media.insertFolder(
    { ...common, id: folderId, parentPath: ROOT, type: 'folder', name: 'F', blobKey: null, metadata: {} },
    false,
  );
  const folder = `${ROOT}.${folderId}`;
  for (let i = 0; i < n; i++) {
    const tags = { color: [i % 2 ? 'red' : 'blue'], size: [i % 3 ? 'big' : 'small'] };
    await store.media.insert(
      {
        ...common,
        id: newMediaId(),
        parentPath: folder,
        type: 'image',
        name: `i${i}`,
        blobKey: `b${i}`,
        metadata: { tags },
      },
      [],
    );
  }
  return { folder };
}

/** The statements one browse runs, with their plans (a store built inside the trace, so its statements are seen). */
async function browsePlans(query: BrowseQuery): Promise<TracedStatement[]> {
  const noVectors = { upsert: () => undefined, remove: () => undefined, removeMedia: () => undefined };
  const writers = { vectors: noVectors, text: sqliteTextIndexWriter(store.db) };
  return (
    await traceSql(store.db, () => sqliteMediaStore(store.db, writers, sqliteEventLog(store.db).writer).browse(query))
  ).statements;
}

test('query plans: no listing reads a table without an index, and no page sorts its place', async () => {
  const { folder } = await library(40);
  const queries: Array<[string, BrowseQuery]> = [];
  for (const sortBy of ['createdAt', 'name', 'type', 'description', 'prompt', 'takenAt'] as const) {
    for (const sortDirection of ['asc', 'desc'] as const) {
      queries.push([`one level by ${sortBy} ${sortDirection}`, q({ path: folder, sortBy, sortDirection })]);
      queries.push([
        `subtree by ${sortBy} ${sortDirection}`,
        q({ path: folder, recursive: true, sortBy, sortDirection }),
      ]);
    }
  }
  queries.push(['deep page', q({ path: folder, recursive: true, offset: 30, limit: 5 })]);
  queries.push([
    'whole collection, types and dates',
    q({ recursive: true, types: ['image'], createdFrom: '2000-01-01' }),
  ]);
  queries.push([
    'subtree by takenAt, capture-time range',
    q({ path: folder, recursive: true, sortBy: 'takenAt', dateField: 'takenAt', createdFrom: '2000-01-01' }),
  ]);
  queries.push(['tag filter', q({ recursive: true, tagFilters: { color: ['red', 'blue'], size: ['big'] } })]);
  queries.push(['tag values', q({ path: folder, tagValues: ['red'] })]);
  for (const [label, query] of queries) {
    const statements = await browsePlans(query);
    assert.ok(
      statements.some((st) => /FROM media_scope s/.test(st.sql)),
      `${label}: reads media_scope`,
    );
    for (const st of statements) {
      const text = `${label}: ${st.sql} | ${st.plan.join(' | ')}`;
      assert.equal(fullScans(st.plan), [], text);
      if (/media_scope s INDEXED BY/.test(st.sql) && /ORDER BY/.test(st.sql))
        assert.not.ok(
          st.plan.some((d) => /USE TEMP B-TREE/.test(d)),
          text,
        );
    }
  }
});

test('query plans: sorted by takenAt, the capture-time range is a range of media_scope_taken', async () => {
  const { folder } = await library(40);
  for (const recursive of [false, true]) {
    const statements = await browsePlans(
      q({
        path: folder,
        recursive,
        sortBy: 'takenAt',
        dateField: 'takenAt',
        createdFrom: '2000-01-01',
        createdBefore: '2100-01-01',
      }),
    );
    const reads = statements.filter((st) => /FROM media_scope s/.test(st.sql));
    assert.ok(reads.length > 0);
    for (const st of reads) {
      assert.ok(
        st.plan.some((d) =>
          /SEARCH s USING (COVERING )?INDEX media_scope_taken \(scope=\? AND lvl=\? AND taken_at>\? AND taken_at<\?\)/.test(
            d,
          ),
        ),
        `${st.sql} | ${st.plan.join(' | ')}`,
      );
    }
  }
});

test('query plans: a listing with only the place and types filtering counts nothing', async () => {
  const { folder } = await library(5);
  for (const query of [q({ path: folder, recursive: true }), q({ types: ['folder'] }), q({ recursive: true })]) {
    const statements = await browsePlans(query);
    const counts = statements.filter((st) => /count\(\*\)/.test(st.sql));
    assert.equal(counts, [], statements.map((st) => st.sql).join(' | '));
  }
});

test('query plans: tag and date filters count nothing: they read chunk rows of the bitmaps by key', async () => {
  const { folder } = await library(40);
  const day = new Date().toISOString().slice(0, 10);
  for (const query of [
    q({ path: folder, tagFilters: { color: ['red', 'blue'], size: ['big'] } }),
    q({ path: folder, recursive: true, tagValues: ['red'], createdFrom: `${day}T00:00:00.000Z` }),
    // Bounds inside a day: the day's bitmap, less its items on the far side, read as ranges of the date index.
    q({ path: folder, tagValues: ['red'], createdFrom: `${day}T00:00:00.500Z`, createdBefore: `${day}T23:59:59.999Z` }),
  ]) {
    const statements = await browsePlans(query);
    const plans = statements.flatMap((st) => st.plan);
    const text = plans.join(' | ');
    assert.equal(
      statements.filter((st) => /count\(\*\)|FROM media_tags/.test(st.sql)),
      [],
      text,
    );
    assert.ok(
      plans.some((d) => /^SEARCH scope_bits USING INDEX sqlite_autoindex_scope_bits_1 \(scope=\? AND lvl=\?/.test(d)),
      text,
    );
    assert.ok(
      plans.some((d) =>
        /^SEARCH tag_bits USING INDEX (sqlite_autoindex_tag_bits_1|tag_bits_value) \(dataset_id=\?/.test(d),
      ),
      text,
    );
    // The page walks the sort index, testing each row's item number, read from the index entry (022).
    const walk = statements.find((st) => /browse_has\(s\.ord\)/.test(st.sql));
    assert.ok(walk, text);
    assert.ok(
      walk.plan.some((d) => /^SEARCH s USING COVERING INDEX media_scope_created \(scope=\? AND lvl=\?/.test(d)),
      walk.plan.join(' | '),
    );
    assert.not.ok(
      walk.plan.some((d) => /media_ords/.test(d)),
      walk.plan.join(' | '),
    );
    for (const edge of statements.filter((st) => /SELECT s\.ord FROM/.test(st.sql)))
      assert.ok(
        edge.plan.some((d) =>
          /^SEARCH s USING COVERING INDEX media_scope_created \(scope=\? AND lvl=\? AND created_at>\? AND created_at<\?\)/.test(
            d,
          ),
        ),
        edge.plan.join(' | '),
      );
    assert.is(statements.filter((st) => /SELECT s\.ord FROM/.test(st.sql)).length, query.createdBefore ? 2 : 0, text);
  }
});

test('page cursors: the next page starts after the one before, in a range of the index; any write forgets them', async () => {
  const { folder } = await library(40);
  const query = (offset: number) => q({ path: folder, tagFilters: { color: ['red'] }, limit: 4, offset });
  const ids = async (s: SqliteStorage, offset: number) => (await s.media.browse(query(offset))).items.map((m) => m.id);
  const whole = async () => (await store.media.browse({ ...query(0), limit: 100 })).items.map((m) => m.id);
  const before = await whole();
  assert.is(before.length, 20);
  for (let offset = 0; offset < 20; offset += 4)
    assert.equal(await ids(store, offset), before.slice(offset, offset + 4));

  const noVectors = { upsert: () => undefined, remove: () => undefined, removeMedia: () => undefined };
  const writers = { vectors: noVectors, text: sqliteTextIndexWriter(store.db) };
  // Also within a date range on the sort key: the cursor, not the range's bound, is where the walk starts.
  const day = new Date().toISOString().slice(0, 10);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const dated = (offset: number) => ({
    ...query(offset),
    createdFrom: `${day}T00:00:00.000Z`,
    createdBefore: `${tomorrow}T00:00:00.000Z`,
  });
  const { statements } = await traceSql(store.db, async () => {
    const media = sqliteMediaStore(store.db, writers, sqliteEventLog(store.db).writer);
    await media.browse(query(4));
    await media.browse(query(8));
    await media.browse(dated(4));
    assert.equal(
      (await media.browse(dated(8))).items.map((m) => m.id),
      before.slice(8, 12),
    );
  });
  const next = statements.filter((st) => /\(s\.created_at, s\.item\) < \(\?, \?\)/.test(st.sql));
  assert.is(next.length, 2, "the second pages read from the first ones' cursors");
  for (const st of next)
    assert.ok(
      st.plan.some((d) =>
        /media_scope_created \(scope=\? AND lvl=\? (AND created_at>\? )?AND \(created_at,item\)<\(\?,\?\)\)/.test(d),
      ),
      st.plan.join(' | '),
    );

  // A blue item early in the order turns red: every red page after it moves by one.
  const all = (await store.media.browse(q({ path: folder, limit: 100 }))).items;
  const turnRed = async (s: SqliteStorage) => {
    const blue = all.find((m) => (m.metadata.tags as Record<string, string[]>).color[0] === 'blue')!;
    all.splice(all.indexOf(blue), 1);
    await s.media.mutateMetadata(blue.id, blue.createdById, (m) => ({ ...m, tags: { color: ['red'] } }));
  };
  const other = openSqliteStorage(storeFile);
  try {
    await turnRed(other); // another connection (another process) writes
    const afterOther = await whole();
    assert.is(afterOther.length, 21);
    for (let offset = 0; offset < 21; offset += 4)
      assert.equal(await ids(store, offset), afterOther.slice(offset, offset + 4), `offset ${offset}`);
  } finally {
    await other.close();
  }
  await turnRed(store); // this connection writes
  const afterOwn = await whole();
  assert.is(afterOwn.length, 22);
  for (let offset = 0; offset < 22; offset += 4)
    assert.equal(await ids(store, offset), afterOwn.slice(offset, offset + 4), `offset ${offset}`);
});

test('media_scope.ord is the item number in media_ords after inserts, versions, moves and deletes', async () => {
  const { folder } = await library(6);
  const items = (await store.media.browse(q({ path: folder, limit: 10 }))).items;
  const first = items[0];
  const strays = () =>
    store.db
      .prepare(`SELECT count(*) FROM media_scope s LEFT JOIN media_ords o ON o.item = s.item WHERE o.ord IS NOT s.ord`)
      .pluck()
      .get();
  // A new version (the insert trigger, and the old version leaving), then the old one selected again (live).
  const { id: _id, ...rest } = first;
  await store.media.insert({ ...rest, id: newMediaId(), rootId: first.rootId, blobKey: 'v2' }, []);
  await store.media.selectVersion(first.id, first.createdById);
  // An item moved alone (the move trigger), a folder moved with its subtree (scopeMove.ts), a delete.
  await store.media.move(items[1].id, ROOT, first.createdById);
  const g = newMediaId();
  await store.media.insertFolder(
    { ...rest, id: g, parentPath: ROOT, type: 'folder', name: 'G', blobKey: null, metadata: {} },
    false,
  );
  await store.media.move(folder.slice(-32), `${ROOT}.${g}`, first.createdById);
  await store.media.softDelete(items[2].id, first.createdById);
  assert.ok((store.db.prepare(`SELECT count(*) FROM media_scope`).pluck().get() as number) > 10);
  assert.is(strays(), 0);
});

test('browse bitmaps: a moved folder keeps its day (whole-day ranges list it where it went)', async () => {
  const { folder } = await library(3);
  const [item] = (await store.media.browse(q({ path: folder, limit: 1 }))).items;
  const { id: _id, ...rest } = item;
  const g = newMediaId();
  await store.media.insertFolder(
    { ...rest, id: g, parentPath: ROOT, type: 'folder', name: 'G', blobKey: null, metadata: {} },
    false,
  );
  await store.media.move(folder.slice(-32), `${ROOT}.${g}`, item.createdById);
  const day = new Date().toISOString().slice(0, 10);
  const next = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const listed = await store.media.browse(
    q({ path: `${ROOT}.${g}`, createdFrom: `${day}T00:00:00.000Z`, createdBefore: `${next}T00:00:00.000Z` }),
  );
  assert.equal(
    listed.items.map((m) => m.id),
    [folder.slice(-32)],
  );
});

test('browse bitmaps: months, days and tags after created_at edits, and as migrations 021–024 fill them, equal a plain count', async () => {
  const { folder } = await library(60);
  const db = store.db;
  // Spread the items over ten days of three months (as SQL: the store sets created_at itself); the triggers move
  // their day and month bits.
  db.prepare(
    `UPDATE media SET created_at = '2025-0' || (2 + rowid % 3) || '-' || printf('%02d', 1 + (rowid % 10))
       || 'T' || printf('%02d', rowid % 24) || ':00:00.000Z'
     WHERE type = 'image'`,
  ).run();
  const plain = (from: string, before: string, value: string | null) =>
    db
      .prepare(
        `SELECT lower(id) FROM media m WHERE parent_path = ? AND status = 'active' AND is_current = 1
           AND created_at >= ? AND created_at < ?
           AND (? IS NULL OR EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = m.id AND t.value = ?))
         ORDER BY created_at DESC, id DESC`,
      )
      .pluck()
      .all(folder, from, before, value, value) as string[];
  const check = async (label: string) => {
    for (const [from, before] of [
      ['2025-03-03', '2025-03-06'],
      ['2025-03-01', '2025-03-02'],
      ['2025-02-01', '2025-04-01'],
      ['2025-02-05', '2025-04-03'],
      ['2025-03-01', '2025-05-01'],
      ['2025-03-02', '2025-04-01'],
      ['2025-01-01', '2026-01-01'],
    ]) {
      for (const [value, dateField] of [
        [null, 'createdAt'],
        ['red', 'createdAt'],
        ['small', 'createdAt'],
        // No capture time in these items: it is createdAt, moved by the same edits (024's update trigger).
        [null, 'takenAt'],
        ['red', 'takenAt'],
      ] as const) {
        const query = q({
          path: folder,
          dateField,
          createdFrom: `${from}T00:00:00.000Z`,
          createdBefore: `${before}T00:00:00.000Z`,
          tagValues: value ? [value] : null,
          limit: 100,
        });
        const got = await store.media.browse(query);
        const want = plain(`${from}T00:00:00.000Z`, `${before}T00:00:00.000Z`, value);
        assert.is(got.total, want.length, `${label}: ${dateField} ${from}..${before} ${value}`);
        assert.equal(
          got.items.map((m) => m.id),
          want,
          `${label}: ${dateField} ${from}..${before} ${value}`,
        );
      }
    }
  };
  await check('kept by triggers');
  // The fill of an existing library, as the migration runs it.
  const sql = readFileSync(
    new URL('../../src/storage/sqlite/migrations/021_browse_bitmaps.sql', import.meta.url),
    'utf8',
  );
  const fill = sql.slice(sql.indexOf('-- The data of an existing library'), sql.indexOf('-- Each trigger adds'));
  // Numbered again: migration 022's fill carries the new numbers into media_scope.
  const ords = readFileSync(new URL('../../src/storage/sqlite/migrations/022_scope_ords.sql', import.meta.url), 'utf8');
  const carry = ords.slice(
    ords.indexOf('UPDATE media_scope SET ord'),
    ords.indexOf('CREATE INDEX media_scope_created'),
  );
  db.exec(`DELETE FROM scope_bits; DELETE FROM tag_bits; DELETE FROM day_bits; DELETE FROM media_ords; ${fill}`);
  db.exec(`UPDATE media_scope SET ord = -1; ${carry}`);
  // And migration 023's months, from those numbers.
  const monthsSql = readFileSync(
    new URL('../../src/storage/sqlite/migrations/023_month_bits.sql', import.meta.url),
    'utf8',
  );
  const months = monthsSql.slice(monthsSql.indexOf('INSERT INTO month_bits'), monthsSql.indexOf('-- Months follow'));
  db.exec(`DELETE FROM month_bits; ${months}`);
  // And migration 024's capture-time days and months.
  const takenSql = readFileSync(
    new URL('../../src/storage/sqlite/migrations/024_taken_bits.sql', import.meta.url),
    'utf8',
  );
  const taken = takenSql.slice(takenSql.indexOf('INSERT INTO taken_day_bits'), takenSql.indexOf('-- Kept by'));
  db.exec(`DELETE FROM taken_day_bits; DELETE FROM taken_month_bits; ${taken}`);
  assert.is(db.prepare(`SELECT count(*) FROM media_scope WHERE ord < 0`).pluck().get(), 0);
  await check('filled by the migrations');
});

test("ranks: renames the log no longer reaches back to build the rank again; a caller's transaction walks without one", async () => {
  const { folder } = await library(60);
  const ranked = openSqliteStorage(storeFile, { browse: { alwaysLeap: true } });
  try {
    const query = q({ path: folder, tagFilters: { color: ['red'] }, sortBy: 'name', sortDirection: 'asc', limit: 4 });
    const ids = (r: { items: Array<{ id: string }> }) => r.items.map((m) => m.id);
    const same = async (label: string) => {
      for (const offset of [0, 5, 13, 22, 29])
        assert.equal(
          ids(await ranked.media.browse({ ...query, offset })),
          ids(await store.media.browse({ ...query, offset })),
          `${label}, offset ${offset}`,
        );
    };
    await same('built');
    const red = (await store.media.browse({ ...query, limit: 30 })).items;
    for (const [i, item] of red.slice(0, 12).entries())
      await store.media.update(item.id, { name: i % 2 ? `zz${i}` : `aa${i}` }, item.createdById);
    await same('renames read from the log');
    for (const [i, item] of red.slice(12, 24).entries())
      await store.media.update(item.id, { name: i % 2 ? `ab${i}` : `zy${i}` }, item.createdById);
    // As the log's trim does once 65,536 rows came after these: the rank must not trust its blocks.
    store.db.prepare(`DELETE FROM rank_log WHERE seq < (SELECT max(seq) FROM rank_log)`).run();
    await same('renames the log lost');
    // Inside a caller's transaction, which rolls back: the listings neither read the log nor move the rank (its
    // rename's log row is undone, and the next write's row takes the same number).
    const [a, b] = [red[24], red[25]];
    ranked.db.exec('BEGIN IMMEDIATE');
    await ranked.media.update(a.id, { name: 'aaaa' }, a.createdById);
    for (const offset of [0, 5, 13, 22, 29]) await ranked.media.browse({ ...query, offset });
    ranked.db.exec('ROLLBACK');
    await store.media.update(b.id, { name: 'aaab' }, b.createdById);
    await same('after a rolled-back rename');
  } finally {
    await ranked.close();
  }
});

test("query plans: a Live Photo's other half is found through migration 026's index", () => {
  // mediaContent.ts (findByContentIdentifier).
  const plan = planOf(
    store.db,
    `SELECT * FROM media WHERE dataset_id = ?
     AND json_extract(CASE WHEN json_valid(exif) THEN exif END, '$.capture.contentIdentifier') = ?
     AND status = 'active' ORDER BY created_at, id`,
    ['c', 'x'],
  );
  assert.ok(
    plan.some((d) => /^SEARCH media USING INDEX media_content_identifier/.test(d)),
    plan.join(' | '),
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
