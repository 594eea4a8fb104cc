/**
 * Part of the storage contract (run by ./sqlite.test.ts and ./postgres.test.ts beside ./suite.ts): bulk
 * changes (storage.bulk): tags and moves of many items in one transaction, the browse listings and tag groups in
 * step, and undo of exactly what changed. Talks to the store only through the Storage interface.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import type { BrowseQuery, Metadata, NewMedia } from '../../src/storage/types.js';

export function bulkSuite(name: string, open: () => Promise<Storage>): void {
  const test = suite(`storage (bulk): ${name}`);
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
  const tagsOf = async (id: string) => (await s.media.get(id))!.metadata.tags;
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

  test('editTags adds to the items lacking the tag; tag groups and tag-filtered listings follow; undo takes back only those', async () => {
    const had = await item({ tags: { place: ['beach'] } });
    const others = [await item(), await item({ tags: { who: ['ann'] } })];
    const ids = [had.id, ...others.map((m) => m.id)];
    const a = action('addTags');
    const result = await s.bulk.editTags(a, ids, { kind: 'add', tags: [{ group: 'place', value: 'beach' }] });
    assert.equal(result, { changed: 2, unchanged: 1 });
    for (const id of ids) assert.equal(((await tagsOf(id)) as Record<string, string[]>).place, ['beach']);
    assert.equal(await listed({ tagValues: ['beach'] }), [...ids].sort());
    assert.equal(await listed({ tagFilters: { place: ['beach'] } }), [...ids].sort());
    assert.equal((await s.media.tagGroups(collId)).place, ['beach']);
    assert.equal((await s.bulk.last(orgId, userId))?.changedCount, 2);

    assert.equal(await s.bulk.undo(a.id, orgId, userId), { reverted: 2 });
    assert.equal(await tagsOf(had.id), { place: ['beach'] }, 'the item that had it keeps it');
    assert.equal(await tagsOf(others[0].id), {});
    assert.equal(await tagsOf(others[1].id), { who: ['ann'] });
    assert.equal(await listed({ tagValues: ['beach'] }), [had.id]);
    const again = await s.bulk.undo(a.id, orgId, userId).catch((e) => e);
    assert.is((again as { code?: string }).code, 'conflict', 'undo twice is refused');
  });

  test('editTags removes values and groups, sets a group exactly; undo brings back what was removed', async () => {
    const x = await item({ tags: { c: ['red', 'blue'], k: ['a'] } });
    const y = await item({ tags: { c: ['red'] } });
    const rm = action('removeTags');
    assert.equal(await s.bulk.editTags(rm, [x.id, y.id], { kind: 'remove', tags: [{ group: 'c', value: 'red' }] }), {
      changed: 2,
      unchanged: 0,
    });
    assert.equal(await tagsOf(x.id), { c: ['blue'], k: ['a'] });
    assert.equal(await tagsOf(y.id), {});
    assert.equal(await listed({ tagValues: ['red'] }), []);
    await s.bulk.undo(rm.id, orgId, userId);
    assert.equal(await tagsOf(x.id), { c: ['blue', 'red'], k: ['a'] });
    assert.equal(await listed({ tagValues: ['red'] }), [x.id, y.id].sort());

    await s.bulk.editTags(action(), [x.id, y.id], { kind: 'setGroup', group: 'c', values: ['green'] });
    assert.equal(await tagsOf(x.id), { c: ['green'], k: ['a'] });
    assert.equal(await tagsOf(y.id), { c: ['green'] });
    await s.bulk.editTags(action(), [x.id], { kind: 'remove', tags: [{ group: 'k' }] });
    assert.equal(await tagsOf(x.id), { c: ['green'] });
    assert.equal((await s.media.tagGroups(collId)).c, ['green']);
  });

  test('all or nothing: a deleted item or one of another organization anywhere in the ids changes nothing', async () => {
    const items = [await item(), await item(), await item()];
    await s.media.softDelete(items[1].id, userId);
    const ids = items.map((m) => m.id);
    const err = await s.bulk
      .editTags(action(), ids, { kind: 'add', tags: [{ group: 'g', value: 'v' }] })
      .catch((e) => e);
    assert.is((err as { code?: string }).code, 'not_found');
    assert.is(await tagsOf(items[0].id), undefined, 'the item before the failure was not tagged');
    const otherOrg = await newOrg();
    const foreign = await s.media.insert(
      base('image', pathLabel(await newColl(otherOrg)), {}, undefined, otherOrg),
      [],
    );
    const err2 = await s.bulk.move(action(), [items[0].id, foreign.id], root).catch((e) => e);
    assert.is((err2 as { code?: string }).code, 'not_found');
    assert.is(await s.bulk.last(orgId, userId), null, 'no action recorded');
  });

  test('move: items and folders go under the destination; listings follow; undo puts each back where it was', async () => {
    const a = await folder();
    const b = await folder();
    const inA = await item({}, a.path);
    const atRoot = await item();
    const sub = await folder(a.path);
    const deep = await item({}, sub.path);
    const mv = action('move');
    const r = await s.bulk.move(mv, [inA.id, atRoot.id, sub.id], b.path);
    assert.equal(r, { changed: 3, unchanged: 0 });
    assert.equal(await listed({ path: b.path, recursive: true }), [inA.id, atRoot.id, sub.id, deep.id].sort());
    assert.equal(await listed({ path: a.path, recursive: true }), []);
    assert.is((await s.media.get(deep.id))!.path, `${b.path}.${sub.id}.${deep.id}`);
    const into = await s.bulk.move(action(), [atRoot.id, b.id], `${b.path}.${sub.id}`).catch((e) => e);
    assert.is((into as { code?: string }).code, 'invalid_input', 'a folder into its own subtree: nothing moves');
    assert.is((await s.media.get(atRoot.id))!.parentPath, b.path);
    // That failed move recorded nothing: the move before is still the last action, and undoes exactly.
    assert.equal(await s.bulk.undo(mv.id, orgId, userId), { reverted: 3 });
    assert.is((await s.media.get(inA.id))!.parentPath, a.path);
    assert.is((await s.media.get(atRoot.id))!.parentPath, root);
    assert.is((await s.media.get(deep.id))!.path, `${a.path}.${sub.id}.${deep.id}`);
    assert.equal(await listed({ path: b.path, recursive: true }), []);
  });

  test("undo: only the user's last action; a move whose old folder is gone is refused whole", async () => {
    const a = await folder();
    const x = await item({}, a.path);
    const first = action();
    await s.bulk.editTags(first, [x.id], { kind: 'add', tags: [{ group: 'g', value: 'v' }] });
    const mv = action();
    await s.bulk.move(mv, [x.id], root);
    const old = await s.bulk.undo(first.id, orgId, userId).catch((e) => e);
    assert.is((old as { code?: string }).code, 'not_found', 'a replaced action is gone');
    await s.media.softDelete(a.id, userId);
    const gone = await s.bulk.undo(mv.id, orgId, userId).catch((e) => e);
    assert.is((gone as { code?: string }).code, 'conflict');
    assert.is((await s.media.get(x.id))!.parentPath, root);
    const other = await s.bulk.undo(mv.id, orgId, newUuid()).catch((e) => e);
    assert.is((other as { code?: string }).code, 'not_found', "another user's action is not found");
  });

  test.run();
}
