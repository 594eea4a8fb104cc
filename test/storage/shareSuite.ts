/**
 * Part of the storage contract (called by ./suite.ts): albums, the albumId browse filter, share links and
 * the share audit list, through the Storage interface only, so SQLite and PostgreSQL answer alike.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import type { ShareLink } from '../../src/storage/shareStore.js';
import type { MediaRecord, Metadata } from '../../src/storage/types.js';
import { query, suiteLibrary, type Fx } from './suiteLibrary.js';

export function shareSuite(name: string, open: () => Promise<Storage>, close: (s: Storage) => Promise<void>): void {
  const test = suite(`storage: ${name}: albums and share links`);
  let s: Storage;
  let fx: Fx;

  test.before.each(async () => {
    s = await open();
    fx = await suiteLibrary(s, 'O');
  });
  test.after.each(async () => {
    await close(s);
  });

  async function item(parentPath: string, o: { name?: string; metadata?: Metadata; rootId?: string } = {}) {
    const id = newMediaId();
    return s.media.insert(
      {
        id,
        collectionId: fx.collId,
        organizationId: fx.orgId,
        parentPath,
        type: 'image',
        name: o.name ?? `${id.slice(0, 6)}.jpg`,
        blobKey: `blob-${id}`,
        mimeType: 'image/jpeg',
        width: 10,
        height: 10,
        duration: null,
        sizeBytes: 10,
        exif: {},
        metadata: o.metadata ?? {},
        processingStatus: 'ready',
        createdById: fx.userId,
        ...(o.rootId ? { rootId: o.rootId } : {}),
      },
      [{ id: newMediaId(), timestamp: '0', blobKey: `frame-${id}`, width: 10, height: 10, metadata: {} }],
    );
  }
  async function folder(folderName: string): Promise<MediaRecord> {
    const { folder: f } = await s.media.insertFolder(
      {
        id: newMediaId(),
        collectionId: fx.collId,
        organizationId: fx.orgId,
        parentPath: fx.root,
        type: 'folder',
        name: folderName,
        blobKey: null,
        mimeType: null,
        width: null,
        height: null,
        duration: null,
        sizeBytes: 0,
        exif: {},
        metadata: {},
        processingStatus: 'ready',
        createdById: fx.userId,
      },
      false,
    );
    return f;
  }
  const newAlbum = (albumName: string) => ({
    id: newUuid(),
    collectionId: fx.collId,
    organizationId: fx.orgId,
    name: albumName,
    createdById: fx.userId,
    createdAt: nowIso(),
  });
  const all = { limit: 100, offset: 0 };

  test('albums: create with items in order, add, remove, reorder, cover, rename, delete', async () => {
    const [a, b, c, d] = [await item(fx.root), await item(fx.root), await item(fx.root), await item(fx.root)];
    const album = await s.albums.create(newAlbum('Trip'), [c.id, a.id, c.id]);
    assert.is(album.itemCount, 2, 'a duplicate id is held once');
    assert.equal((await s.albums.page(album.id, all)).ids, [c.id, a.id]);
    assert.is(await s.albums.addItems(album.id, [a.id, b.id, d.id], nowIso()), 2, 'only new ids are added');
    assert.equal((await s.albums.page(album.id, all)).ids, [c.id, a.id, b.id, d.id]);
    assert.equal(await s.albums.page(album.id, { limit: 2, offset: 1 }), { ids: [a.id, b.id], total: 4 });
    await s.albums.reorder(album.id, [d.id, 'nope', b.id], nowIso());
    assert.equal((await s.albums.page(album.id, all)).ids, [d.id, b.id, c.id, a.id], 'named first, the rest after');
    const covered = await s.albums.update(album.id, { coverMediaId: b.id, name: 'Trip 2' }, nowIso());
    assert.is(covered!.coverMediaId, b.id);
    assert.is(covered!.name, 'Trip 2');
    assert.is(await s.albums.removeItems(album.id, [b.id, 'nope'], nowIso()), 1);
    assert.is((await s.albums.get(album.id))!.coverMediaId, null, 'the cover goes with its item');
    assert.ok(await s.albums.holds(album.id, a.id));
    assert.not.ok(await s.albums.holds(album.id, b.id));
    const other = await s.albums.create(newAlbum('Other'), [a.id]);
    assert.equal(
      (await s.albums.list(fx.collId)).map((x) => x.id).sort(),
      [album.id, other.id].sort(),
      'an item can be in several albums',
    );
    assert.ok(await s.albums.remove(album.id));
    assert.not.ok(await s.albums.remove(album.id));
    assert.is(await s.albums.get(album.id), null);
    assert.equal((await s.albums.page(other.id, all)).ids, [a.id], 'the other album keeps the item');
  });

  test('albums: deleted items drop out; an edit’s new current version stays in', async () => {
    const [a, b] = [await item(fx.root), await item(fx.root)];
    const album = await s.albums.create(newAlbum('A'), [a.id, b.id]);
    await s.media.softDelete(a.id, fx.userId);
    assert.equal(await s.albums.page(album.id, all), { ids: [b.id], total: 1 });
    assert.is((await s.albums.get(album.id))!.itemCount, 1);
    const edit = await item(fx.root, { rootId: b.id });
    assert.equal((await s.albums.page(album.id, all)).ids, [edit.id], 'the current version is listed');
  });

  test('browse: albumId filters any folder level, with the other filters', async () => {
    const f = await folder('Trip');
    const red = await item(f.path, { metadata: { tags: { color: ['red'] } } });
    const blue = await item(fx.root, { metadata: { tags: { color: ['blue'] } } });
    const outside = await item(fx.root, { metadata: { tags: { color: ['red'] } } });
    const album = await s.albums.create(newAlbum('A'), [red.id, blue.id]);
    const q = query(fx, { albumId: album.id, sortBy: 'createdAt', limit: 10 });
    const listed = await s.media.browse(q);
    assert.equal(
      listed.items.map((m) => m.id),
      [red.id, blue.id],
    );
    assert.is(listed.total, 2);
    const red2 = await s.media.browse({ ...q, tagFilters: { color: ['red'] } });
    assert.equal(
      red2.items.map((m) => m.id),
      [red.id],
      'with a tag filter',
    );
    assert.equal((await s.media.browseIds({ ...q, tagFilters: { color: ['red'] } }, 10)).sort(), [red.id]);
    const level = await s.media.browse({ ...q, recursive: false });
    assert.equal(
      level.items.map((m) => m.id),
      [blue.id],
      'one folder level',
    );
    assert.ok(!listed.items.some((m) => m.id === outside.id));
    const none = await s.media.browse({ ...q, albumId: newUuid() });
    assert.equal(none, { items: [], total: 0 });
  });

  const link = (o: Partial<ShareLink> = {}): ShareLink => ({
    id: newUuid(),
    organizationId: fx.orgId,
    collectionId: fx.collId,
    kind: 'selection',
    targetId: null,
    tokenHash: newMediaId() + newMediaId(),
    passwordHash: null,
    expiresAt: null,
    canDownload: false,
    canUpload: false,
    showOrganization: false,
    name: 'For Ann',
    viewCount: 0,
    createdById: fx.userId,
    createdAt: nowIso(),
    updatedAt: nowIso(),
    revokedAt: null,
    ...o,
  });

  test('share links: create, find by token hash, list, update, count views, revoke once', async () => {
    const [a, b] = [await item(fx.root), await item(fx.root)];
    const l = link({ expiresAt: '2999-01-01T00:00:00.000Z', canDownload: true, passwordHash: '$scrypt$x' });
    await s.shares.create(l, [b.id, a.id, b.id]);
    assert.equal(await s.shares.findByTokenHash(l.tokenHash), l);
    assert.is(await s.shares.findByTokenHash('0'.repeat(64)), null);
    assert.equal(await s.shares.selectionPage(l.id, all), { ids: [b.id, a.id], total: 2 });
    assert.ok(await s.shares.selectionHolds(l.id, a.id));
    await s.media.softDelete(b.id, fx.userId);
    assert.equal(await s.shares.selectionPage(l.id, all), { ids: [a.id], total: 1 }, 'deleted items drop out');
    const at = nowIso();
    const changed = await s.shares.update(
      l.id,
      { name: 'New', passwordHash: null, canUpload: true, expiresAt: null },
      at,
    );
    assert.equal(
      { ...changed, updatedAt: '' },
      { ...l, name: 'New', passwordHash: null, canUpload: true, expiresAt: null, updatedAt: '' },
    );
    await s.shares.countView(l.id);
    await s.shares.countView(l.id);
    assert.is((await s.shares.get(l.id))!.viewCount, 2);
    const album = link({ kind: 'album', targetId: newUuid() });
    await s.shares.create(album, []);
    assert.equal((await s.shares.list(fx.collId)).map((x) => x.id).sort(), [l.id, album.id].sort());
    assert.ok(await s.shares.revoke(l.id, at));
    assert.not.ok(await s.shares.revoke(l.id, nowIso()), 'revoked once');
    assert.is((await s.shares.findByTokenHash(l.tokenHash))!.revokedAt, at, 'a revoked link is still found');
  });

  test('share audit: per organization, newest first, paged', async () => {
    const other = newUuid();
    for (let i = 0; i < 3; i++)
      await s.shares.audit({
        id: newUuid(),
        organizationId: fx.orgId,
        linkId: null,
        action: `a${i}`,
        actorUserId: fx.userId,
        clientAddress: '10.0.0.1',
        detail: { i, nested: { ok: true } },
        at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      });
    await s.shares.audit({
      id: newUuid(),
      organizationId: other,
      linkId: null,
      action: 'x',
      actorUserId: null,
      clientAddress: null,
      detail: {},
      at: nowIso(),
    });
    const list = await s.shares.auditList(fx.orgId, all);
    assert.equal(
      list.map((e) => e.action),
      ['a2', 'a1', 'a0'],
    );
    assert.equal(list[0].detail, { i: 2, nested: { ok: true } });
    assert.is(list[0].at, '2026-01-01T00:00:02.000Z');
    assert.equal(
      (await s.shares.auditList(fx.orgId, { limit: 1, offset: 1 })).map((e) => e.action),
      ['a1'],
    );
    assert.is((await s.shares.auditList(other, all)).length, 1);
  });

  test.run();
}
