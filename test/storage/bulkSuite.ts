/**
 * Part of the storage contract (run by ./sqlite.test.ts and ./postgres.test.ts beside ./suite.ts): bulk
 * changes (storage.bulk): tags and moves of many items in one transaction, the browse listings and tag groups in
 * step, and undo of exactly what changed. Talks to the store only through the Storage interface.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newUuid, pathLabel } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import { bulkLibrary, type Fx } from './suiteLibrary.js';

export function bulkSuite(name: string, open: () => Promise<Storage>): void {
  const test = suite(`storage (bulk): ${name}`);
  const lib = bulkLibrary();
  const { newOrg, newColl, base, item, folder, action, listed } = lib;
  let fx: Fx;
  test.before.each(async () => {
    fx = await lib.open(await open());
  });
  test.after.each(async () => fx.s.close());
  const tagsOf = async (id: string) => (await fx.s.media.get(id))!.metadata.tags;

  test('editTags adds to the items lacking the tag; tag groups and tag-filtered listings follow; undo takes back only those', async () => {
    const had = await item({ tags: { place: ['beach'] } });
    const others = [await item(), await item({ tags: { who: ['ann'] } })];
    const ids = [had.id, ...others.map((m) => m.id)];
    const a = action('addTags');
    const result = await fx.s.bulk.editTags(a, ids, { kind: 'add', tags: [{ group: 'place', value: 'beach' }] });
    assert.equal(result, { changed: 2, unchanged: 1 });
    for (const id of ids) assert.equal(((await tagsOf(id)) as Record<string, string[]>).place, ['beach']);
    assert.equal(await listed({ tagValues: ['beach'] }), [...ids].sort());
    assert.equal(await listed({ tagFilters: { place: ['beach'] } }), [...ids].sort());
    assert.equal((await fx.s.media.tagGroups(fx.collId)).place, ['beach']);
    assert.equal((await fx.s.bulk.last(fx.orgId, fx.userId))?.changedCount, 2);

    assert.equal(await fx.s.bulk.undo(a.id, fx.orgId, fx.userId), { reverted: 2 });
    assert.equal(await tagsOf(had.id), { place: ['beach'] }, 'the item that had it keeps it');
    assert.equal(await tagsOf(others[0].id), {});
    assert.equal(await tagsOf(others[1].id), { who: ['ann'] });
    assert.equal(await listed({ tagValues: ['beach'] }), [had.id]);
    const again = await fx.s.bulk.undo(a.id, fx.orgId, fx.userId).catch((e) => e);
    assert.is((again as { code?: string }).code, 'conflict', 'undo twice is refused');
  });

  test('editTags removes values and groups, sets a group exactly; undo brings back what was removed', async () => {
    const x = await item({ tags: { c: ['red', 'blue'], k: ['a'] } });
    const y = await item({ tags: { c: ['red'] } });
    const rm = action('removeTags');
    assert.equal(await fx.s.bulk.editTags(rm, [x.id, y.id], { kind: 'remove', tags: [{ group: 'c', value: 'red' }] }), {
      changed: 2,
      unchanged: 0,
    });
    assert.equal(await tagsOf(x.id), { c: ['blue'], k: ['a'] });
    assert.equal(await tagsOf(y.id), {});
    assert.equal(await listed({ tagValues: ['red'] }), []);
    await fx.s.bulk.undo(rm.id, fx.orgId, fx.userId);
    assert.equal(await tagsOf(x.id), { c: ['blue', 'red'], k: ['a'] });
    assert.equal(await listed({ tagValues: ['red'] }), [x.id, y.id].sort());

    await fx.s.bulk.editTags(action(), [x.id, y.id], { kind: 'setGroup', group: 'c', values: ['green'] });
    assert.equal(await tagsOf(x.id), { c: ['green'], k: ['a'] });
    assert.equal(await tagsOf(y.id), { c: ['green'] });
    await fx.s.bulk.editTags(action(), [x.id], { kind: 'remove', tags: [{ group: 'k' }] });
    assert.equal(await tagsOf(x.id), { c: ['green'] });
    assert.equal((await fx.s.media.tagGroups(fx.collId)).c, ['green']);
  });

  test('all or nothing: a deleted item or one of another organization anywhere in the ids changes nothing', async () => {
    const items = [await item(), await item(), await item()];
    await fx.s.media.softDelete(items[1].id, fx.userId);
    const ids = items.map((m) => m.id);
    const err = await fx.s.bulk
      .editTags(action(), ids, { kind: 'add', tags: [{ group: 'g', value: 'v' }] })
      .catch((e) => e);
    assert.is((err as { code?: string }).code, 'not_found');
    assert.is(await tagsOf(items[0].id), undefined, 'the item before the failure was not tagged');
    const otherOrg = await newOrg();
    const foreign = await fx.s.media.insert(
      base('image', pathLabel(await newColl(otherOrg)), {}, undefined, otherOrg),
      [],
    );
    const err2 = await fx.s.bulk.move(action(), [items[0].id, foreign.id], fx.root).catch((e) => e);
    assert.is((err2 as { code?: string }).code, 'not_found');
    assert.is(await fx.s.bulk.last(fx.orgId, fx.userId), null, 'no action recorded');
  });

  test('move: items and folders go under the destination; listings follow; undo puts each back where it was', async () => {
    const a = await folder();
    const b = await folder();
    const inA = await item({}, a.path);
    const atRoot = await item();
    const sub = await folder(a.path);
    const deep = await item({}, sub.path);
    const mv = action('move');
    const r = await fx.s.bulk.move(mv, [inA.id, atRoot.id, sub.id], b.path);
    assert.equal(r, { changed: 3, unchanged: 0 });
    assert.equal(await listed({ path: b.path, recursive: true }), [inA.id, atRoot.id, sub.id, deep.id].sort());
    assert.equal(await listed({ path: a.path, recursive: true }), []);
    assert.is((await fx.s.media.get(deep.id))!.path, `${b.path}.${sub.id}.${deep.id}`);
    const into = await fx.s.bulk.move(action(), [atRoot.id, b.id], `${b.path}.${sub.id}`).catch((e) => e);
    assert.is((into as { code?: string }).code, 'invalid_input', 'a folder into its own subtree: nothing moves');
    assert.is((await fx.s.media.get(atRoot.id))!.parentPath, b.path);
    // That failed move recorded nothing: the move before is still the last action, and undoes exactly.
    assert.equal(await fx.s.bulk.undo(mv.id, fx.orgId, fx.userId), { reverted: 3 });
    assert.is((await fx.s.media.get(inA.id))!.parentPath, a.path);
    assert.is((await fx.s.media.get(atRoot.id))!.parentPath, fx.root);
    assert.is((await fx.s.media.get(deep.id))!.path, `${a.path}.${sub.id}.${deep.id}`);
    assert.equal(await listed({ path: b.path, recursive: true }), []);
  });

  test("undo: only the user's last action; a move whose old folder is gone is refused whole", async () => {
    const a = await folder();
    const x = await item({}, a.path);
    const first = action();
    await fx.s.bulk.editTags(first, [x.id], { kind: 'add', tags: [{ group: 'g', value: 'v' }] });
    const mv = action();
    await fx.s.bulk.move(mv, [x.id], fx.root);
    const old = await fx.s.bulk.undo(first.id, fx.orgId, fx.userId).catch((e) => e);
    assert.is((old as { code?: string }).code, 'not_found', 'a replaced action is gone');
    await fx.s.media.softDelete(a.id, fx.userId);
    const gone = await fx.s.bulk.undo(mv.id, fx.orgId, fx.userId).catch((e) => e);
    assert.is((gone as { code?: string }).code, 'conflict');
    assert.is((await fx.s.media.get(x.id))!.parentPath, fx.root);
    const other = await fx.s.bulk.undo(mv.id, fx.orgId, newUuid()).catch((e) => e);
    assert.is((other as { code?: string }).code, 'not_found', "another user's action is not found");
  });

  test.run();
}
