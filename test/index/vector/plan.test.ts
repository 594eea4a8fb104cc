/**
 * The first-pass plan of one partition (src/index/vector/sqlite/plan.ts
 * pickLists): which coarse lists a query scans, and when it scans the whole
 * partition instead. Pure: no database.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pickLists } from '../../../src/index/vector/sqlite/plan.js';

const test = suite('pickLists');

/** 8 lists of 100 rows, ranked 7, 6, ..., 0 (nearest first). */
const ranked = [7, 6, 5, 4, 3, 2, 1, 0];
const even = new Map(ranked.map((list) => [list, 100]));

test('takes the nearest lists until they hold the target rows and the fewest lists', () => {
  const choice = pickLists(ranked, even, 800, 250, 2, undefined);
  assert.is(choice.whole, false);
  assert.equal(
    choice.lists.map((x) => x.list),
    [7, 6, 5],
  );
  assert.equal(
    choice.lists.map((x) => x.rows),
    [100, 100, 100],
  );
});

test('probes at least minProbe lists even when fewer hold the target', () => {
  const choice = pickLists(ranked, even, 800, 50, 3, undefined);
  assert.equal(
    choice.lists.map((x) => x.list),
    [7, 6, 5],
  );
});

test('skips empty lists and does not count them', () => {
  const rows = new Map(even);
  rows.set(6, 0);
  rows.delete(5);
  const choice = pickLists(ranked, rows, 600, 200, 2, undefined);
  assert.equal(
    choice.lists.map((x) => x.list),
    [7, 4],
  );
});

test('an explicit probe takes exactly that many lists', () => {
  const choice = pickLists(ranked, even, 800, 10_000, 2, 3);
  assert.is(choice.whole, false);
  assert.equal(
    choice.lists.map((x) => x.list),
    [7, 6, 5],
  );
});

test('scans the whole partition when the lists chosen hold half its rows', () => {
  const choice = pickLists(ranked, even, 800, 400, 2, undefined);
  assert.is(choice.whole, true);
  assert.equal(choice.lists, []);
});

test('an explicit probe ignores the half-the-rows rule, but not "every non-empty list"', () => {
  assert.is(pickLists(ranked, even, 800, 0, 1, 5).whole, false);
  assert.is(pickLists(ranked, even, 800, 0, 1, 8).whole, true);
  assert.is(pickLists(ranked, even, 800, 0, 1, 20).whole, true);
});

test.run();
