/**
 * The chunk containers of the browse bitmaps (src/storage/sqlite/itemBitmap.ts):
 * canonical encoding on both sides of the array/bitmap boundary, and the set
 * arithmetic a listing does, against plain JavaScript sets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ItemSet, addToChunk, decodeChunk, encodeChunk, removeFromChunk } from '../../src/storage/sqlite/itemBitmap.js';
import { seededRandom } from '../../src/platform/random.js';
import { monthsAndDays } from '../../src/storage/sqlite/browseBitmaps.js';

const members = (blob: Uint8Array): number[] => [...ItemSet.union([{ chunk: 0, bits: blob }]).members()];

test('a chunk is a sorted uint16 array up to 1,023 members and a 2 KiB bitmap above, both ways', () => {
  let blob: Buffer = Buffer.alloc(0);
  const want: number[] = [];
  for (let i = 0; i < 1024; i++) {
    const low = (i * 7919) % 16384;
    blob = addToChunk(blob, low);
    want.push(low);
    assert.is(blob.length, i + 1 <= 1023 ? (i + 1) * 2 : 2048, `after ${i + 1} members`);
  }
  assert.equal(
    members(blob),
    [...want].sort((a, b) => a - b),
  );
  // Adding a member twice changes nothing; removing one takes the bitmap back to an array.
  assert.equal(addToChunk(blob, want[0]), blob);
  blob = removeFromChunk(blob, want[5]);
  assert.is(blob.length, 1023 * 2);
  assert.not.ok(members(blob).includes(want[5]));
  // Canonical: the same members encode to the same bytes whatever the history.
  assert.equal(encodeChunk(decodeChunk(blob)), blob);
  assert.is(removeFromChunk(addToChunk(null, 16383), 16383).length, 0);
  assert.equal(members(addToChunk(addToChunk(null, 16383), 0)), [0, 16383]);
});

test('ItemSet: union, intersection, size and membership equal plain sets over many chunks', () => {
  const rand = seededRandom(7);
  const chunkRows = (set: Set<number>) => {
    const byChunk = new Map<number, number[]>();
    for (const n of set) (byChunk.get(n >> 14) ?? byChunk.set(n >> 14, []).get(n >> 14)!).push(n & 16383);
    return [...byChunk].map(([chunk, lows]) => ({
      chunk,
      bits: encodeChunk(decodeChunk(lows.reduce<Buffer | null>((b, l) => addToChunk(b, l), null))),
    }));
  };
  const randomSet = (n: number, max: number) => new Set(Array.from({ length: n }, () => Math.floor(rand() * max)));
  const a = randomSet(3000, 200_000); // sparse chunks: arrays
  const b = randomSet(60_000, 100_000); // dense chunks: bitmaps
  const c = randomSet(500, 200_000);
  const union = ItemSet.union([...chunkRows(b), ...chunkRows(c)]);
  const got = ItemSet.union(chunkRows(a)).intersect(union);
  const want = [...a].filter((n) => b.has(n) || c.has(n)).sort((x, y) => x - y);
  assert.is(got.size(), want.length);
  assert.equal([...got.members()], want);
  for (let i = 0; i < 2000; i++) {
    const n = Math.floor(rand() * 200_000);
    assert.is(got.has(n), want.includes(n), `member ${n}`);
  }
  assert.is(ItemSet.union([]).size(), 0);
});

test('a day range is its whole months and the days of its partial months at either end', () => {
  assert.equal(monthsAndDays('2025-04-01', '2025-07-01'), {
    months: { from: '2025-04', before: '2025-07' },
    days: [],
  });
  assert.equal(monthsAndDays('2025-03-15', '2025-07-10'), {
    months: { from: '2025-04', before: '2025-07' },
    days: [
      { from: '2025-03-15', before: '2025-04-01' },
      { from: '2025-07-01', before: '2025-07-10' },
    ],
  });
  assert.equal(monthsAndDays('2025-12-02', '2026-02-01'), {
    months: { from: '2026-01', before: '2026-02' },
    days: [{ from: '2025-12-02', before: '2026-01-01' }],
  });
  assert.equal(monthsAndDays('2025-03-02', '2025-03-20'), {
    months: null,
    days: [{ from: '2025-03-02', before: '2025-03-20' }],
  });
  assert.equal(monthsAndDays('', '2025-03-20'), {
    months: { from: '0000-00', before: '2025-03' },
    days: [{ from: '2025-03-01', before: '2025-03-20' }],
  });
});

test.run();
