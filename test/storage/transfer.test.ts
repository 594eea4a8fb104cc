/**
 * `npm run migrate`'s table copy (src/storage/transfer): a SQLite library made through the stores
 * (folders, tags, versions, frames, captions, objects with vectors, faces, a watched folder, sessions, keys,
 * jobs) arrives in PostgreSQL (PGlite) whole; a copy stopped half-way and started again copies nothing
 * twice; the verification names a table that differs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import { openPgDb } from '../../src/platform/pgDb.js';
import { LIBRARY_MIGRATIONS, migratePg, VECTOR_MIGRATIONS } from '../../src/storage/postgres/migrate.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/storage/sqlite/index.js';
import { transferTables } from '../../src/storage/transfer/transfer.js';
import { compareCounts } from '../../src/storage/transfer/verify.js';
import type { NewMedia } from '../../src/storage/types.js';
import { freshSchema, pglite } from '../helpers/pglite.js';

const test = suite('storage: SQLite → PostgreSQL transfer');
const dir = mkdtempSync(path.join(os.tmpdir(), 'transfer-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

const unit = (dims: number, seed: number) => {
  const v = new Float32Array(dims).map((_, i) => Math.sin(seed * 7 + i));
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

/** A small library with one of everything the stores keep. */
async function makeLibrary(s: SqliteStorage): Promise<void> {
  const user = await s.accounts.createUser({ id: newUuid(), email: 'o@example.com', name: 'O', createdAt: nowIso() });
  const org = await s.accounts.createOrganization({ id: newUuid(), name: 'Acme', slug: 'acme' }, user.id);
  const at = nowIso();
  const coll = await s.collections.create({
    ...{ id: newUuid(), organizationId: org.id, name: 'Lib', icon: null, type: 'media' },
    ...{ createdAt: at, updatedAt: at, createdById: user.id },
  });
  const base = (parentPath: string, type: NewMedia['type'], name: string): NewMedia => ({
    ...{ id: newMediaId(), collectionId: coll.id, organizationId: org.id, parentPath, type, name },
    ...{ blobKey: type === 'folder' ? null : `${'a'.repeat(64)}.jpg`, mimeType: null, width: 4, height: 3 },
    ...{ duration: null, sizeBytes: 10, exif: { Make: 'Cam', Model: 'X' }, processingStatus: 'ready' as const },
    ...{ metadata: type === 'folder' ? {} : { tags: { colour: ['red', name] }, z: 1, a: 2 }, createdById: user.id },
  });
  const { folder } = await s.media.insertFolder(base(pathLabel(coll.id), 'folder', 'Trips'), false);
  for (let i = 0; i < 23; i++) {
    const item = await s.media.insert(base(folder.path, 'image', `p${i}.jpg`), [
      { id: newMediaId(), timestamp: '0', blobKey: `${'b'.repeat(64)}.webp`, width: 4, height: 3 },
    ]);
    if (i % 5 === 0) await s.media.insert({ ...base(folder.path, 'image', `p${i}-v2.jpg`), rootId: item.id }, []);
    const [frame] = await s.analysis.framesOf(item.id);
    await s.analysis.replaceFrameAnalysis(frame.id, {
      captions: [{ id: newMediaId(), text: `a red bus number ${i}`, model: 'cap' }],
      objects: [
        {
          ...{ id: newMediaId(), type: 'face', label: 'face', blobKey: null, confidence: 0.9, model: 'det' },
          ...{ polygon: [{ x: 0, y: 0 }], similarityModel: 'faces' as const },
          embedding: { modelId: 'face-model', vector: unit(8, i) },
        },
      ],
    });
  }
  await s.watches.add({
    ...{ id: newUuid(), collectionId: coll.id, organizationId: org.id, dir: '/photos', into: '' },
    ...{ mirrorDeletions: true, source: 'api' as const, createdById: user.id, createdAt: nowIso() },
  });
  const [first] = await s.media
    .browse({
      ...{ collectionId: coll.id, path: folder.path, recursive: false, types: ['image'], createdFrom: null },
      ...{ createdBefore: null, tagFilters: null, tagValues: null, mediaId: null, clusterId: null },
      ...{ sortBy: 'name', sortDirection: 'asc', limit: 1, offset: 0 },
    })
    .then((r) => r.items);
  const album = { id: newUuid(), collectionId: coll.id, organizationId: org.id, name: 'Best', createdById: user.id };
  await s.albums.create({ ...album, createdAt: nowIso() }, [first.rootId]);
  const link = { id: newUuid(), organizationId: org.id, collectionId: coll.id, kind: 'selection' as const };
  await s.shares.create(
    {
      ...{ ...link, targetId: null, tokenHash: 'f'.repeat(64), passwordHash: null, expiresAt: null },
      ...{ canDownload: true, canUpload: false, showOrganization: false, name: 'L', viewCount: 2 },
      ...{ createdById: user.id, createdAt: nowIso(), updatedAt: nowIso(), revokedAt: null },
    },
    [first.rootId],
  );
  await s.shares.audit({
    ...{ id: newUuid(), organizationId: org.id, linkId: link.id, action: 'created', actorUserId: user.id },
    ...{ clientAddress: null, detail: { kind: 'selection' }, at: nowIso() },
  });
  await s.jobs.enqueue({ type: 'ingest', payload: { x: 1 }, key: 'k1' });
  await s.accounts.setSettingIfAbsent('token_key', 'secret');
}

test('a whole library arrives; stopped half-way and run again, nothing twice; counts verified', async () => {
  const sqlite = openSqliteStorage(path.join(dir, 'library.db'));
  await makeLibrary(sqlite);
  const server = await pglite();
  const pg = openPgDb(server.url, { schema: freshSchema('transfer') });
  await migratePg(pg, server.vector ? [LIBRARY_MIGRATIONS, VECTOR_MIGRATIONS] : [LIBRARY_MIGRATIONS]);
  try {
    const stop = new AbortController();
    let batches = 0;
    const first = transferTables(sqlite.db, pg, {
      batchSize: 7,
      signal: stop.signal,
      onProgress: () => void (++batches === 9 && stop.abort()),
    });
    await first.then(
      () => assert.unreachable('stopped'),
      (err) => assert.is((err as Error).name, 'AbortError'),
    );
    assert.ok((await compareCounts(sqlite.db, pg)).length > 0, 'half-way: tables differ');
    await transferTables(sqlite.db, pg, { batchSize: 7 });
    assert.equal(await compareCounts(sqlite.db, pg), []);
    const row = await pg.one<{ path: string; metadata: unknown; is_current: boolean; created_at: string }>(
      `SELECT path, metadata, is_current, created_at FROM media WHERE name = 'p3.jpg'`,
    );
    const source = sqlite.db.prepare(`SELECT path, metadata, created_at FROM media WHERE name = 'p3.jpg'`).get() as {
      path: string;
      metadata: string;
      created_at: string;
    };
    assert.equal(row, { ...source, metadata: JSON.parse(source.metadata), is_current: true });
    await pg.query(`DELETE FROM captions WHERE id = (SELECT min(id) FROM captions)`);
    assert.equal(await compareCounts(sqlite.db, pg), [{ table: 'captions', sqlite: 23, postgres: 22 }]);
  } finally {
    await sqlite.close();
    await pg.close();
  }
});

test.run();
