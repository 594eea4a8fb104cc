/**
 * Part of the storage contract (called by ./suite.ts): the timeline's month buckets (Storage.timeline), through the
 * Storage interface only, so both engines pass the same tests.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Storage } from '../../src/storage/storage.js';
import type { BrowseQuery } from '../../src/storage/types.js';
import { addFolder, addItem, query, suiteLibrary, type Fx } from './suiteLibrary.js';

const months = (fx: Fx, o: Partial<BrowseQuery> = {}) =>
  fx.s.timeline.months(query(fx, { types: ['image', 'video'], ...o }));

export function timelineSuite(
  name: string,
  open: () => Promise<Storage>,
  close: (s: Storage) => Promise<void> = (s) => s.close(),
): void {
  const test = suite(`storage: ${name}: timeline`);
  let fx: Fx;
  test.before.each(async () => {
    fx = await suiteLibrary(await open(), 'T');
  });
  test.after.each(async () => {
    await close(fx.s);
  });

  test('months: items per month of the capture time, newest first; the upload month without one', async () => {
    assert.equal(await months(fx), [], 'an empty collection has no months');
    const f = await addFolder(fx, 'Trips', fx.root);
    await addItem(fx, fx.root, { takenAt: '2019-03-02T10:00:00.000Z' });
    await addItem(fx, f.path, { takenAt: '2019-03-31T23:59:59.999Z' });
    await addItem(fx, f.path, { takenAt: '2004-12-25T08:00:00.000Z', type: 'video' });
    const undated = await addItem(fx, fx.root);
    const now = undated.createdAt.slice(0, 7);
    assert.equal(await months(fx), [
      { month: now, count: 1 },
      { month: '2019-03', count: 2 },
      { month: '2004-12', count: 1 },
    ]);
    assert.equal(await months(fx, { types: ['video'] }), [{ month: '2004-12', count: 1 }], 'types filter');
    assert.equal(
      await months(fx, { path: f.path }),
      [
        { month: '2019-03', count: 1 },
        { month: '2004-12', count: 1 },
      ],
      'a folder subtree',
    );
    assert.equal(await months(fx, { recursive: false }), [
      { month: now, count: 1 },
      { month: '2019-03', count: 1 },
    ]);
    const folders = await months(fx, { types: null });
    assert.is(folders[0].count, 2, 'the folder itself counts only when the types let it through');
    assert.equal(
      await months(fx, {
        dateField: 'takenAt',
        createdFrom: '2019-01-01T00:00:00.000Z',
        createdBefore: '2020-01-01T00:00:00.000Z',
      }),
      [{ month: '2019-03', count: 2 }],
      'a capture-time range',
    );
    assert.equal(await months(fx, { path: `${fx.root}.${'0'.repeat(32)}` }), [], 'a path naming no folder');
    const g = await addFolder(fx, 'Elsewhere', fx.root);
    await fx.s.media.move(f.id, g.path, fx.userId);
    assert.equal(await months(fx, { path: f.path }), [], 'the folder left that path');
    assert.equal((await months(fx, { path: g.path })).length, 2, 'its items are under the new parent');
    assert.equal((await months(fx))[1], { month: '2019-03', count: 2 }, 'and still in the collection');
  });

  test('months: trashed items leave, archived ones only when asked, favourites and tags filter, versions count once', async () => {
    const a = await addItem(fx, fx.root, {
      takenAt: '2021-06-01T12:00:00.000Z',
      metadata: { tags: { trip: ['alps'] } },
    });
    await addItem(fx, fx.root, {
      rootId: a.id,
      takenAt: '2021-06-01T12:00:00.000Z',
      metadata: { tags: { trip: ['alps'] } },
    });
    const b = await addItem(fx, fx.root, { takenAt: '2021-06-15T12:00:00.000Z' });
    const c = await addItem(fx, fx.root, { takenAt: '2020-01-15T12:00:00.000Z' });
    const d = await addItem(fx, fx.root, { takenAt: '2020-01-16T12:00:00.000Z' });
    assert.equal(await months(fx), [
      { month: '2021-06', count: 2 },
      { month: '2020-01', count: 2 },
    ]);
    await fx.s.media.trash([b.id], fx.userId);
    await fx.s.media.setFlags([c.id], { archived: true });
    await fx.s.media.setFlags([d.id], { favorite: true });
    assert.equal(await months(fx), [
      { month: '2021-06', count: 1 },
      { month: '2020-01', count: 1 },
    ]);
    assert.equal(await months(fx, { archived: 'include' }), [
      { month: '2021-06', count: 1 },
      { month: '2020-01', count: 2 },
    ]);
    assert.equal(await months(fx, { archived: 'only' }), [{ month: '2020-01', count: 1 }]);
    assert.equal(await months(fx, { favorite: true }), [{ month: '2020-01', count: 1 }]);
    assert.equal(await months(fx, { tagFilters: { trip: ['alps'] } }), [{ month: '2021-06', count: 1 }]);
    assert.equal(await months(fx, { tagValues: ['alps'] }), [{ month: '2021-06', count: 1 }]);
    await fx.s.media.restore([b.id]);
    assert.equal((await months(fx))[0], { month: '2021-06', count: 2 }, 'a restored item is back');
    // A range spanning everything is read another way on SQLite (the index, not the bitmaps): the same answer.
    const everything = {
      dateField: 'takenAt' as const,
      createdFrom: '1900-01-01T00:00:00.000Z',
      createdBefore: '2100-01-01T00:00:00.000Z',
    };
    for (const o of [{}, { archived: 'include' as const }, { favorite: true }, { tagValues: ['alps'] }])
      assert.equal(await months(fx, { ...o, ...everything }), await months(fx, o), JSON.stringify(o));
  });

  test.run();
}
