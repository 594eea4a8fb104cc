/**
 * Part of the storage contract (run by ./sqlite.test.ts and ./postgres.test.ts beside ./bulkSuite.ts): the
 * flag and trash bulk changes (storage.bulk setFlags, trash, restore) record exactly the items whose flag or
 * state changed, and undo reverses exactly that, with listings, tag groups and the trash in step.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import type { BrowseQuery, Metadata, NewMedia } from '../../src/storage/types.js';

export function bulkUndoSuite(name: string, open: () => Promise<Storage>): void {
  const test = suite(`storage (bulk undo of flags and trash): ${name}`);
  let s: Storage;
  let userId: string;
  let orgId: string;
  let collId: string;
  let root: string;

  const newOrg = async () => {
    const id = newUuid();
    await s.accounts.createOrganization({ id, name: 'Org', slug: `org-${id.slice(0, 8)}` }, userId);
    return id;
  };
  const newColl = async (organizationId: string) =>
    (
      await s.collections.create({
        id: newUuid(),
        organizationId,
        name: 'C',
        icon: null,
        type: 'media',
        createdAt: nowIso(),
        updatedAt: nowIso(),
        createdById: userId,
      })
    ).id;

  test.before.each(async () => {
    s = await open();
    userId = newUuid();
    await s.accounts.createUser({ id: userId, email: `u-${userId}@example.com`, name: 'U', createdAt: nowIso() });
    orgId = await newOrg();
    collId = await newColl(orgId);
    root = pathLabel(collId);
  });
  test.after.each(async () => s.close());

  const base = (type: 'image' | 'folder', parentPath: string, metadata: Metadata, coll = collId, org = orgId) =>
    ({
      id: newMediaId(),
      collectionId: coll,
      organizationId: org,
      parentPath,
      type,
      name: `${type}-${newMediaId().slice(0, 6)}`,
      blobKey: type === 'folder' ? null : `b-${newMediaId()}`,
      mimeType: null,
      width: null,
      height: null,
      duration: null,
      sizeBytes: 1,
      exif: {},
      metadata,
      processingStatus: 'ready',
      createdById: userId,
    }) satisfies NewMedia;
  const item = async (metadata: Metadata = {}, parentPath = root) =>
    s.media.insert(base('image', parentPath, metadata), []);
  const folder = async (parentPath = root) =>
    (await s.media.insertFolder(base('folder', parentPath, {}), false)).folder;
  const action = (op = 'x') => ({ id: newUuid(), organizationId: orgId, userId, operation: { type: op } });
  const listed = async (over: Partial<BrowseQuery>) =>
    (
      await s.media.browseIds(
        {
          collectionId: collId,
          path: root,
          recursive: true,
          types: null,
          createdFrom: null,
          createdBefore: null,
          tagFilters: null,
          tagValues: null,
          mediaId: null,
          clusterId: null,
          sortBy: 'createdAt',
          sortDirection: 'desc',
          limit: 1000,
          offset: 0,
          ...over,
        },
        10_000,
      )
    ).sort();
  const flags = async (id: string) => {
    const m = (await s.media.get(id))!;
    return { favorite: m.favorite, archived: m.archived };
  };
  const trashIds = async () => (await s.media.listTrash(collId, { limit: 100, offset: 0 })).entries.map((e) => e.id);

  test('setFlags favourite: only the items that were not favourites are recorded, and undo unfavourites only those', async () => {
    const had = await item();
    await s.media.setFlags([had.id], { favorite: true });
    const others = [await item(), await item()];
    const ids = [had.id, ...others.map((m) => m.id)];
    const fav = action('favorite');
    assert.equal(await s.bulk.setFlags(fav, ids, { favorite: true }), { changed: 2, unchanged: 1 });
    assert.equal(await listed({ favorite: true }), [...ids].sort());
    assert.is((await s.bulk.last(orgId, userId))?.changedCount, 2);
    assert.equal(await s.bulk.undo(fav.id, orgId, userId), { reverted: 2 });
    assert.equal(await listed({ favorite: true }), [had.id], 'the one that was a favourite stays one');
    assert.equal(await flags(others[0].id), { favorite: false, archived: false });
    const again = await s.bulk.undo(fav.id, orgId, userId).catch((e) => e);
    assert.is((again as { code?: string }).code, 'conflict');
  });

  test('setFlags archive and unarchive: listings follow; undo of each sets back exactly what it changed', async () => {
    const [x, y, z] = [await item(), await item(), await item()];
    await s.media.setFlags([z.id], { archived: true });
    const arch = action('archive');
    assert.equal(await s.bulk.setFlags(arch, [x.id, z.id], { archived: true }), { changed: 1, unchanged: 1 });
    assert.equal(await listed({}), [y.id], 'archived items are out of the default listing');
    await s.bulk.undo(arch.id, orgId, userId);
    assert.equal(await listed({}), [x.id, y.id].sort());
    assert.equal(await listed({ archived: 'only' }), [z.id], 'z was archived before and stays so');

    const un = action('unarchive');
    assert.equal(await s.bulk.setFlags(un, [y.id, z.id], { archived: false }), { changed: 1, unchanged: 1 });
    assert.equal(await listed({ archived: 'only' }), []);
    await s.bulk.undo(un.id, orgId, userId);
    assert.equal(await listed({ archived: 'only' }), [z.id]);
    assert.equal(await flags(y.id), { favorite: false, archived: false });
  });

  test('trash: items and folders go to the trash; undo puts each back where it was, tags and listings too', async () => {
    const a = await folder();
    const inA = await item({ tags: { place: ['beach'] } }, a.path);
    const sub = await folder(a.path);
    const deep = await item({}, sub.path);
    const keep = await item({ tags: { place: ['beach'] } });
    const del = action('delete');
    assert.equal(await s.bulk.trash(del, [inA.id, sub.id]), { changed: 2, unchanged: 0 });
    assert.equal(await listed({}), [a.id, keep.id].sort());
    assert.equal(await listed({ tagValues: ['beach'] }), [keep.id]);
    assert.equal((await trashIds()).sort(), [inA.id, sub.id].sort());
    assert.equal(await s.bulk.undo(del.id, orgId, userId), { reverted: 2 });
    assert.equal(await trashIds(), []);
    assert.is((await s.media.get(inA.id))!.parentPath, a.path);
    assert.is((await s.media.get(deep.id))!.path, `${a.path}.${sub.id}.${deep.id}`);
    assert.equal(await listed({}), [a.id, inA.id, sub.id, deep.id, keep.id].sort());
    assert.equal(await listed({ tagValues: ['beach'] }), [inA.id, keep.id].sort());
    assert.equal((await s.media.tagGroups(collId)).place, ['beach']);
  });

  test('trash of a folder after an item in it: both entries come back; an entry purged since is left out', async () => {
    const a = await folder();
    const inA = await item({}, a.path);
    const other = await item();
    const del = action('delete');
    assert.equal(await s.bulk.trash(del, [inA.id, a.id, other.id]), { changed: 3, unchanged: 0 });
    await s.media.purgeTrash([other.id]);
    assert.equal(await s.bulk.undo(del.id, orgId, userId), { reverted: 2 });
    assert.equal(await listed({}), [a.id, inA.id].sort());
    assert.is(await s.media.get(other.id), null);
  });

  test('restore: undo trashes the restored entries again, with their old time and user; no other entry', async () => {
    const a = await folder();
    const x = await item({}, a.path);
    const y = await item();
    await s.media.trash([x.id, y.id], userId);
    const before = new Map((await s.media.listTrash(collId, { limit: 10, offset: 0 })).entries.map((e) => [e.id, e]));
    const otherUser = newUuid();
    await s.accounts.createUser({ id: otherUser, email: `o-${otherUser}@example.com`, name: 'O', createdAt: nowIso() });
    const res = { ...action('restore'), userId: otherUser };
    assert.equal(await s.bulk.restore(res, [x.id]), { changed: 1, unchanged: 0 });
    assert.equal(await listed({}), [a.id, x.id].sort());
    assert.equal(await trashIds(), [y.id]);
    assert.equal(await s.bulk.undo(res.id, orgId, otherUser), { reverted: 1 });
    assert.equal(await listed({}), [a.id]);
    const after = (await s.media.listTrash(collId, { limit: 10, offset: 0 })).entries.find((e) => e.id === x.id)!;
    assert.is(new Date(after.deletedAt).getTime(), new Date(before.get(x.id)!.deletedAt).getTime());
    assert.is(after.deletedById, userId, 'deleted by whom it was deleted by, not by who undid the restore');
    assert.equal(
      after.location.map((p) => p.id),
      [a.id],
    );
  });

  test("restore: another organization's trash entry is not found and nothing is restored", async () => {
    const x = await item();
    await s.media.trash([x.id], userId);
    const otherOrg = await newOrg();
    const otherColl = await newColl(otherOrg);
    const foreign = await s.media.insert(base('image', pathLabel(otherColl), {}, otherColl, otherOrg), []);
    await s.media.trash([foreign.id], userId);
    const err = await s.bulk.restore(action('restore'), [x.id, foreign.id]).catch((e) => e);
    assert.is((err as { code?: string }).code, 'not_found');
    assert.equal(await trashIds(), [x.id]);
    assert.is(await s.bulk.last(orgId, userId), null);
  });

  test.run();
}
