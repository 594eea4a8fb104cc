/**
 * Part of the storage contract (run by ./sqlite.test.ts and ./postgres.test.ts beside ./bulkSuite.ts): the
 * flag and trash bulk changes (storage.bulk setFlags, trash, restore) record exactly the items whose flag or
 * state changed, and undo reverses exactly that, with listings, tag groups and the trash in step.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import { bulkLibrary, type Fx } from './suiteLibrary.js';

export function bulkUndoSuite(name: string, open: () => Promise<Storage>): void {
  const test = suite(`storage (bulk undo of flags and trash): ${name}`);
  const lib = bulkLibrary();
  const { newOrg, newColl, base, item, folder, action, listed } = lib;
  let fx: Fx;
  test.before.each(async () => {
    fx = await lib.open(await open());
  });
  test.after.each(async () => fx.s.close());
  const flags = async (id: string) => {
    const m = (await fx.s.media.get(id))!;
    return { favorite: m.favorite, archived: m.archived };
  };
  const trashIds = async () =>
    (await fx.s.media.listTrash(fx.collId, { limit: 100, offset: 0 })).entries.map((e) => e.id);

  test('setFlags favourite: only the items that were not favourites are recorded, and undo unfavourites only those', async () => {
    const had = await item();
    await fx.s.media.setFlags([had.id], { favorite: true });
    const others = [await item(), await item()];
    const ids = [had.id, ...others.map((m) => m.id)];
    const fav = action('favorite');
    assert.equal(await fx.s.bulk.setFlags(fav, ids, { favorite: true }), { changed: 2, unchanged: 1 });
    assert.equal(await listed({ favorite: true }), [...ids].sort());
    assert.is((await fx.s.bulk.last(fx.orgId, fx.userId))?.changedCount, 2);
    assert.equal(await fx.s.bulk.undo(fav.id, fx.orgId, fx.userId), { reverted: 2 });
    assert.equal(await listed({ favorite: true }), [had.id], 'the one that was a favourite stays one');
    assert.equal(await flags(others[0].id), { favorite: false, archived: false });
    const again = await fx.s.bulk.undo(fav.id, fx.orgId, fx.userId).catch((e) => e);
    assert.is((again as { code?: string }).code, 'conflict');
  });

  test('setFlags archive and unarchive: listings follow; undo of each sets back exactly what it changed', async () => {
    const [x, y, z] = [await item(), await item(), await item()];
    await fx.s.media.setFlags([z.id], { archived: true });
    const arch = action('archive');
    assert.equal(await fx.s.bulk.setFlags(arch, [x.id, z.id], { archived: true }), { changed: 1, unchanged: 1 });
    assert.equal(await listed({}), [y.id], 'archived items are out of the default listing');
    await fx.s.bulk.undo(arch.id, fx.orgId, fx.userId);
    assert.equal(await listed({}), [x.id, y.id].sort());
    assert.equal(await listed({ archived: 'only' }), [z.id], 'z was archived before and stays so');

    const un = action('unarchive');
    assert.equal(await fx.s.bulk.setFlags(un, [y.id, z.id], { archived: false }), { changed: 1, unchanged: 1 });
    assert.equal(await listed({ archived: 'only' }), []);
    await fx.s.bulk.undo(un.id, fx.orgId, fx.userId);
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
    assert.equal(await fx.s.bulk.trash(del, [inA.id, sub.id]), { changed: 2, unchanged: 0 });
    assert.equal(await listed({}), [a.id, keep.id].sort());
    assert.equal(await listed({ tagValues: ['beach'] }), [keep.id]);
    assert.equal((await trashIds()).sort(), [inA.id, sub.id].sort());
    assert.equal(await fx.s.bulk.undo(del.id, fx.orgId, fx.userId), { reverted: 2 });
    assert.equal(await trashIds(), []);
    assert.is((await fx.s.media.get(inA.id))!.parentPath, a.path);
    assert.is((await fx.s.media.get(deep.id))!.path, `${a.path}.${sub.id}.${deep.id}`);
    assert.equal(await listed({}), [a.id, inA.id, sub.id, deep.id, keep.id].sort());
    assert.equal(await listed({ tagValues: ['beach'] }), [inA.id, keep.id].sort());
    assert.equal((await fx.s.media.tagGroups(fx.collId)).place, ['beach']);
  });

  test('trash of a folder after an item in it: both entries come back; an entry purged since is left out', async () => {
    const a = await folder();
    const inA = await item({}, a.path);
    const other = await item();
    const del = action('delete');
    assert.equal(await fx.s.bulk.trash(del, [inA.id, a.id, other.id]), { changed: 3, unchanged: 0 });
    await fx.s.media.purgeTrash([other.id]);
    assert.equal(await fx.s.bulk.undo(del.id, fx.orgId, fx.userId), { reverted: 2 });
    assert.equal(await listed({}), [a.id, inA.id].sort());
    assert.is(await fx.s.media.get(other.id), null);
  });

  test('restore: undo trashes the restored entries again, with their old time and user; no other entry', async () => {
    const a = await folder();
    const x = await item({}, a.path);
    const y = await item();
    await fx.s.media.trash([x.id, y.id], fx.userId);
    const before = new Map(
      (await fx.s.media.listTrash(fx.collId, { limit: 10, offset: 0 })).entries.map((e) => [e.id, e]),
    );
    const otherUser = newUuid();
    await fx.s.accounts.createUser({
      id: otherUser,
      email: `o-${otherUser}@example.com`,
      name: 'O',
      createdAt: nowIso(),
    });
    const res = { ...action('restore'), userId: otherUser };
    assert.equal(await fx.s.bulk.restore(res, [x.id]), { changed: 1, unchanged: 0 });
    assert.equal(await listed({}), [a.id, x.id].sort());
    assert.equal(await trashIds(), [y.id]);
    assert.equal(await fx.s.bulk.undo(res.id, fx.orgId, otherUser), { reverted: 1 });
    assert.equal(await listed({}), [a.id]);
    const after = (await fx.s.media.listTrash(fx.collId, { limit: 10, offset: 0 })).entries.find((e) => e.id === x.id)!;
    assert.is(new Date(after.deletedAt).getTime(), new Date(before.get(x.id)!.deletedAt).getTime());
    assert.is(after.deletedById, fx.userId, 'deleted by whom it was deleted by, not by who undid the restore');
    assert.equal(
      after.location.map((p) => p.id),
      [a.id],
    );
  });

  test("restore: another organization's trash entry is not found and nothing is restored", async () => {
    const x = await item();
    await fx.s.media.trash([x.id], fx.userId);
    const otherOrg = await newOrg();
    const otherColl = await newColl(otherOrg);
    const foreign = await fx.s.media.insert(base('image', pathLabel(otherColl), {}, otherColl, otherOrg), []);
    await fx.s.media.trash([foreign.id], fx.userId);
    const err = await fx.s.bulk.restore(action('restore'), [x.id, foreign.id]).catch((e) => e);
    assert.is((err as { code?: string }).code, 'not_found');
    assert.equal(await trashIds(), [x.id]);
    assert.is(await fx.s.bulk.last(fx.orgId, fx.userId), null);
  });

  test.run();
}
