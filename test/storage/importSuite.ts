/**
 * Part of the storage contract (run by ./sqlite.test.ts beside ./suite.ts): items by content hash, usage counts
 * (media.findByContent) and the watched-folder store (storage.watches). Talks to the store only through
 * the Storage interface.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import type { NewMedia } from '../../src/storage/types.js';

export function importSuite(name: string, open: () => Promise<Storage>): void {
  const test = suite(`storage (import): ${name}`);
  let s: Storage;
  let userId: string;
  let orgId: string;
  const colls: string[] = [];

  test.before.each(async () => {
    s = await open();
    userId = newUuid();
    await s.accounts.createUser({ id: userId, email: `u-${userId}@example.com`, name: 'U', createdAt: nowIso() });
    orgId = newUuid();
    await s.accounts.createOrganization({ id: orgId, name: 'Org', slug: `org-${orgId.slice(0, 8)}` }, userId);
    colls.length = 0;
    for (const n of ['A', 'B']) {
      const c = await s.collections.create({
        id: newUuid(),
        organizationId: orgId,
        name: n,
        icon: null,
        type: 'media',
        createdAt: nowIso(),
        updatedAt: nowIso(),
        createdById: userId,
      });
      colls.push(c.id);
    }
  });
  test.after.each(async () => s.close());

  const sha = (c: string) => c.repeat(64);
  function item(collectionId: string, blobKey: string): NewMedia {
    return {
      id: newMediaId(),
      collectionId,
      organizationId: orgId,
      parentPath: pathLabel(collectionId),
      type: 'image',
      name: 'x.jpg',
      blobKey,
      mimeType: 'image/jpeg',
      width: 1,
      height: 1,
      duration: null,
      sizeBytes: 1,
      exif: {},
      metadata: {},
      processingStatus: 'ready',
      createdById: userId,
    };
  }

  test('findByContent: active items of that collection only, by the hash part of the blob key', async () => {
    const a = await s.media.insert(item(colls[0], `${sha('a')}.jpg`), []);
    await s.media.insert(item(colls[1], `${sha('b')}.png`), []);
    const gone = await s.media.insert(item(colls[0], `${sha('c')}.jpg`), []);
    await s.media.softDelete(gone.id, userId);
    const found = await s.media.findByContent(colls[0], [sha('a'), sha('b'), sha('c'), sha('d'), 'nothex', sha('a')]);
    assert.equal(found, [{ sha256: sha('a'), mediaId: a.id, path: a.path, parentPath: a.parentPath, name: 'x.jpg' }]);
    assert.equal(await s.media.findByContent(colls[0], []), []);
  });

  test('usage: items and original bytes per collection, record and processing status; the database size', async () => {
    const big = { ...item(colls[0], `${sha('1')}.jpg`), sizeBytes: 1000 };
    await s.media.insert(big, []);
    await s.media.insert({ ...item(colls[0], `${sha('2')}.jpg`), sizeBytes: 24, processingStatus: 'pending' }, []);
    const gone = await s.media.insert({ ...item(colls[1], `${sha('3')}.jpg`), sizeBytes: 7 }, []);
    await s.media.softDelete(gone.id, userId);
    const other = newUuid();
    await s.accounts.createOrganization({ id: other, name: 'Other', slug: `o-${other.slice(0, 8)}` }, userId);
    const rows = await s.usage.byCollection(orgId);
    const key = (r: { collectionId: string; status: string; processingStatus: string }) =>
      `${colls.indexOf(r.collectionId)}:${r.status}:${r.processingStatus}`;
    assert.equal(Object.fromEntries(rows.map((r) => [key(r), [r.items, r.bytes]])), {
      '0:active:pending': [1, 24],
      '0:active:ready': [1, 1000],
      '1:deleted:ready': [1, 7],
    });
    assert.equal(await s.usage.byCollection(other), []);
    assert.ok((await s.usage.databaseBytes()) > 0);
  });

  test('watches: add (idempotent per collection and dir), list, file records, remove with its files', async () => {
    const folder = {
      id: newUuid(),
      collectionId: colls[0],
      organizationId: orgId,
      dir: '/srv/photos',
      into: 'Inbox/Phone',
      mirrorDeletions: true,
      source: 'api' as const,
      createdById: userId,
      createdAt: nowIso(),
    };
    const first = await s.watches.add(folder);
    assert.ok(first.created);
    assert.equal(first.folder, folder);
    const again = await s.watches.add({ ...folder, id: newUuid() });
    assert.not.ok(again.created);
    assert.is(again.folder.id, folder.id);
    assert.equal(
      (await s.watches.list(colls[0])).map((f) => f.id),
      [folder.id],
    );
    assert.equal(await s.watches.list(colls[1]), []);
    await s.watches.updateSettings(folder.id, { into: '', mirrorDeletions: false });
    assert.equal((await s.watches.get(folder.id))!.into, '');

    const rec = {
      watchId: folder.id,
      relPath: 'a/b.jpg',
      sha256: sha('e'),
      sizeBytes: 10,
      mtimeMs: 1234.5,
      mediaId: newMediaId(),
      created: true,
      error: null,
    };
    await s.watches.putFile(rec);
    assert.equal(await s.watches.file(folder.id, 'a/b.jpg'), rec);
    await s.watches.putFile({ ...rec, sizeBytes: 11, created: false });
    assert.equal((await s.watches.files(folder.id)).length, 1);
    assert.is((await s.watches.file(folder.id, 'a/b.jpg'))!.sizeBytes, 11);
    await s.watches.removeFile(folder.id, 'a/b.jpg');
    assert.is(await s.watches.file(folder.id, 'a/b.jpg'), null);
    await s.watches.putFile(rec);
    assert.ok(await s.watches.remove(folder.id));
    assert.not.ok(await s.watches.remove(folder.id));
    assert.equal(await s.watches.files(folder.id), []);
    assert.is(await s.watches.get(folder.id), null);
  });

  test.run();
}
