/**
 * The shared storage contract (./suite.ts) against the SQLite store, one fresh
 * database file per test, plus checks only SQLite has: migrations and query plans.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso } from '../../src/platform/ids.js';
import type { BrowseQuery } from '../../src/storage/types.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/storage/sqlite/index.js';
import { sqliteMediaStore } from '../../src/storage/sqlite/mediaStore.js';
import { sqliteEventLog } from '../../src/storage/sqlite/eventLog.js';
import type { Db } from '../../src/storage/sqlite/database.js';
import { sqliteTextIndexWriter } from '../../src/index/text/sqlite/writer.js';
import { traceSql, type TracedStatement } from '../../scripts/bench/sqlTrace.js';
import { migrate } from '../../src/storage/sqlite/migrate.js';
import { storageSuite } from './suite.js';
import { importSuite } from './importSuite.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'storage-sqlite-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const tempFile = () => path.join(dir, `t${++n}.db`);

storageSuite('sqlite', async () => openSqliteStorage(tempFile()));
importSuite('sqlite', async () => openSqliteStorage(tempFile()));

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

/** Lines that read a table without any index. */
const fullScans = (plan: string[]) =>
  plan.filter((d) => /^\s*SCAN (m|s|media|media_scope|media_tags)\b/.test(d) && !/USING (COVERING )?INDEX/.test(d));

const COLL = newUuid();
const ROOT = COLL.replace(/-/g, '');
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

let store: SqliteStorage;
test.before.each(() => {
  store = openSqliteStorage(tempFile());
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
  for (const sortBy of ['createdAt', 'name', 'type', 'description', 'prompt'] as const) {
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

test('query plans: a listing with only the place and types filtering counts nothing', async () => {
  const { folder } = await library(5);
  for (const query of [q({ path: folder, recursive: true }), q({ types: ['folder'] }), q({ recursive: true })]) {
    const statements = await browsePlans(query);
    const counts = statements.filter((st) => /count\(\*\)/.test(st.sql));
    assert.equal(counts, [], statements.map((st) => st.sql).join(' | '));
  }
});

test('query plans: the tag filter probes media_tags by primary key, or drives from the tag index', async () => {
  const { folder } = await library(40);
  const statements = await browsePlans(q({ path: folder, tagFilters: { color: ['red', 'blue'], size: ['big'] } }));
  const plans = statements.flatMap((st) => st.plan);
  assert.ok(
    plans.some((d) => /SEARCH (t|media_tags) USING (COVERING )?(PRIMARY KEY|INDEX media_tags_lookup)/.test(d)),
    plans.join(' | '),
  );
  assert.not.ok(
    plans.some((d) => /^\s*SCAN media_tags/.test(d)),
    plans.join(' | '),
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
