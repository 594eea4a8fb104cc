/**
 * Part of the storage contract (called by ./suite.ts): favourite and archive flags, the trash, restore and
 * purge (migration 027 / 060), through the Storage interface only, so both engines pass the same tests.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import type { BrowseQuery } from '../../src/storage/types.js';
import { addFolder, addItem, query, suiteLibrary, type Fx } from './suiteLibrary.js';

const listed = async (fx: Fx, o: Partial<BrowseQuery> = {}) =>
  (await fx.s.media.browse(query(fx, o))).items.map((m) => m.id).sort();

export function trashSuite(
  name: string,
  open: () => Promise<Storage>,
  close: (s: Storage) => Promise<void> = (s) => s.close(),
): void {
  const test = suite(`storage: ${name}: flags and trash`);
  let fx: Fx;
  test.before.each(async () => {
    fx = await suiteLibrary(await open(), 'T');
  });
  test.after.each(async () => {
    await close(fx.s);
  });

  test('setFlags: counts the named items that changed, every version carries the flags, a new one keeps them', async () => {
    const a = await addItem(fx, fx.root);
    const b = await addItem(fx, fx.root);
    const a2 = await addItem(fx, fx.root, { rootId: a.id });
    assert.is(await fx.s.media.setFlags([a.id, b.id, newMediaId()], { favorite: true }), 2);
    assert.is(await fx.s.media.setFlags([a.id, b.id], { favorite: true }), 0, 'nothing changes twice');
    const [ra, ra2] = [await fx.s.media.get(a.id), await fx.s.media.get(a2.id)];
    assert.ok(ra!.favorite && ra2!.favorite, 'both versions');
    assert.not.ok(ra!.archived);
    const a3 = await addItem(fx, fx.root, { rootId: a.id });
    assert.ok((await fx.s.media.get(a3.id))!.favorite, 'a new version keeps the flag');
    assert.equal(await listed(fx, { favorite: true }), [a3.id, b.id].sort());
    assert.is(await fx.s.media.setFlags([b.id], { archived: true, favorite: false }), 1);
    assert.equal(await listed(fx), [a3.id], 'archived items are out of the default listing');
    assert.equal(await listed(fx, { archived: 'only' }), [b.id]);
    assert.equal(await listed(fx, { archived: 'include' }), [a3.id, b.id].sort());
    assert.equal(await fx.s.media.browseIds(query(fx), 100), [a3.id], 'browseIds leaves them out too');
    assert.is((await fx.s.media.browse(query(fx, { mediaId: b.id }))).total, 0, 'and a single item probe');
  });

  test('trash: an item with its versions is one entry with when, who and where; restore brings it back whole', async () => {
    const f = await addFolder(fx, 'Trips', fx.root);
    const a = await addItem(fx, f.path, { metadata: { tags: { color: ['red'] } } });
    const a2 = await addItem(fx, f.path, { rootId: a.id, metadata: { tags: { color: ['red'] } } });
    const before = (await fx.s.accounts.getOrganization(fx.orgId))!.storageBytes;
    assert.equal(await fx.s.media.trash([a2.id, a.id, newMediaId()], fx.userId), { deletedCount: 2 });
    assert.is((await fx.s.media.get(a.id))!.status, 'deleted');
    assert.equal(await listed(fx, { tagFilters: { color: ['red'] } }), []);
    const { entries, total } = await fx.s.media.listTrash(fx.collId, { limit: 10, offset: 0 });
    assert.is(total, 1);
    assert.is(entries[0].id, a2.id);
    assert.is(entries[0].deletedById, fx.userId);
    assert.equal(entries[0].location, [{ id: f.id, name: 'Trips' }]);
    assert.is(entries[0].rowCount, 2);
    assert.ok(entries[0].deletedAt <= nowIso());
    assert.is((await fx.s.accounts.getOrganization(fx.orgId))!.storageBytes, before - 200);
    assert.equal(await fx.s.media.restore([a2.id, newMediaId()]), { restoredCount: 2 });
    assert.is((await fx.s.media.get(a.id))!.status, 'active');
    assert.equal(await listed(fx, { tagFilters: { color: ['red'] } }), [a2.id], 'the current version, tags again');
    assert.is((await fx.s.media.frames([a2.id])).get(a2.id)?.length, 1, 'its frames are back');
    assert.is((await fx.s.media.listTrash(fx.collId, { limit: 10, offset: 0 })).total, 0);
    assert.is((await fx.s.accounts.getOrganization(fx.orgId))!.storageBytes, before);
  });

  test('trash: a folder is one entry; an item deleted before stays in the trash when the folder comes back', async () => {
    const f = await addFolder(fx, 'F', fx.root);
    const sub = await addFolder(fx, 'Sub', f.path);
    const x = await addItem(fx, sub.path);
    const y = await addItem(fx, f.path);
    await fx.s.media.softDelete(y.id, fx.userId);
    const { deletedCount } = await fx.s.media.softDelete(f.id, fx.userId);
    assert.is(deletedCount, 3, 'the folder, its subfolder and the live item');
    const { entries } = await fx.s.media.listTrash(fx.collId, { limit: 10, offset: 0 });
    assert.equal(
      entries.map((e) => e.id),
      [f.id, y.id],
      'newest deletion first',
    );
    assert.equal(await listed(fx), []);
    assert.equal(await fx.s.media.restore([f.id]), { restoredCount: 3 });
    assert.equal(await listed(fx), [f.id, sub.id, x.id].sort());
    assert.is((await fx.s.media.get(y.id))!.status, 'deleted', 'y had its own entry');
    assert.equal(
      (await fx.s.media.listTrash(fx.collId, { limit: 10, offset: 0 })).entries.map((e) => e.id),
      [y.id],
    );
  });

  test('restore: a deleted folder on the way comes back, a purged one is made again with its name', async () => {
    const f = await addFolder(fx, 'Holiday', fx.root);
    const x = await addItem(fx, f.path);
    const z = await addItem(fx, f.path);
    await fx.s.media.trash([x.id], fx.userId);
    await fx.s.media.trash([f.id], fx.userId);
    const purged = await fx.s.media.purgeTrash([f.id]);
    assert.is(purged.purged, 1);
    assert.ok(purged.blobKeys.includes(`blob-${z.id}`) && purged.blobKeys.includes(`frame-${z.id}`));
    assert.is(await fx.s.media.get(z.id), null, 'rows are gone');
    assert.is(await fx.s.media.get(f.id), null);
    assert.equal(await fx.s.media.restore([x.id]), { restoredCount: 1 });
    const back = (await fx.s.media.get(f.id))!;
    assert.is(back.status, 'active');
    assert.is(back.name, 'Holiday');
    assert.is(back.path, f.path);
    assert.equal(await listed(fx, { path: f.path, recursive: false }), [x.id]);

    const g = await addFolder(fx, 'Kept', fx.root);
    const w = await addItem(fx, g.path);
    const v = await addItem(fx, g.path);
    await fx.s.media.trash([w.id, g.id], fx.userId);
    await fx.s.media.restore([w.id]);
    assert.is((await fx.s.media.get(g.id))!.status, 'active', 'the folder row itself, out of its entry');
    assert.equal(await listed(fx, { path: g.path, recursive: false }), [w.id]);
    await fx.s.media.restore([g.id]);
    assert.equal(await listed(fx, { path: g.path, recursive: false }), [v.id, w.id].sort());
  });

  test('purgeTrash: a blob another item still references stays referenced; trashBefore finds old entries', async () => {
    const a = await addItem(fx, fx.root, { blobKey: 'shared-blob' });
    const b = await addItem(fx, fx.root, { blobKey: 'shared-blob' });
    await fx.s.media.trash([a.id], fx.userId);
    const cut = nowIso();
    await new Promise((r) => setTimeout(r, 5));
    await fx.s.media.trash([b.id], fx.userId);
    assert.equal(await fx.s.media.trashBefore(cut, fx.collId, 10), [a.id]);
    assert.equal(await fx.s.media.trashBefore(cut, null, 10), [a.id]);
    assert.equal(await fx.s.media.trashBefore(nowIso(), newUuid(), 10), []);
    await fx.s.media.restore([b.id]);
    const { blobKeys } = await fx.s.media.purgeTrash([a.id, a.id, newMediaId()]);
    assert.ok(blobKeys.includes('shared-blob'));
    assert.ok((await fx.s.media.referencedBlobKeys(['shared-blob', `frame-${a.id}`])).has('shared-blob'));
    assert.not.ok((await fx.s.media.referencedBlobKeys([`frame-${a.id}`])).has(`frame-${a.id}`));
    assert.equal(await fx.s.media.purgeTrash([a.id]), { purged: 0, blobKeys: [] }, 'twice is nothing');
    assert.equal(await fx.s.media.trashEntries([a.id, b.id]), []);
  });

  test('listTrash: pages newest first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const m = await addItem(fx, fx.root);
      await fx.s.media.softDelete(m.id, fx.userId);
      ids.unshift(m.id);
      await new Promise((r) => setTimeout(r, 3));
    }
    const page = await fx.s.media.listTrash(fx.collId, { limit: 2, offset: 2 });
    assert.is(page.total, 5);
    assert.equal(
      page.entries.map((e) => e.id),
      ids.slice(2, 4),
    );
    assert.is(page.entries[0].item.status, 'deleted');
    assert.equal(
      (await fx.s.media.trashEntries([ids[0]])).map((e) => e.id),
      [ids[0]],
    );
  });

  test.run();
}
