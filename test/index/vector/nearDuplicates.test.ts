/** The near-duplicate scanner (src/index/vector/nearDuplicates.ts) against all-pairs cosine on synthetic vectors. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bruteForceGroups, NearDuplicateScanner } from '../../../src/index/vector/nearDuplicates.js';
import { NearDuplicateThread } from '../../../src/index/vector/nearDuplicateThread.js';
import { seededRandom } from '../../../src/platform/random.js';

const t = suite('near-duplicate scanner');
const DIMS = 128;

/** n vectors around 20 clusters; every 8th a copy of an earlier one (cosine ≈ 0.97–0.995). */
function data(n: number, seed = 3) {
  const r = seededRandom(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const centres = Array.from({ length: 20 }, () => Float32Array.from({ length: DIMS }, gauss));
  const vectors: Float32Array[] = [];
  const copyOf: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0 && i % 8 === 0) {
      const from = Math.floor(r() * i);
      const noise = 0.1 + r() * 0.12;
      const base = vectors[from];
      const norm = Math.sqrt(base.reduce((s, x) => s + x * x, 0));
      vectors.push(Float32Array.from(base, (x) => x + (gauss() * noise * norm) / Math.sqrt(DIMS)));
      copyOf.push(from);
    } else {
      const c = centres[Math.floor(r() * centres.length)];
      vectors.push(Float32Array.from(c, (x) => x + gauss()));
      copyOf.push(-1);
    }
  }
  return { vectors, copyOf };
}

const sets = (groups: number[][]) => groups.map((g) => [...g].sort((a, b) => a - b).join(',')).sort();

t('finds the groups all-pairs cosine finds, and only those', () => {
  const { vectors, copyOf } = data(1500);
  const s = new NearDuplicateScanner(DIMS);
  for (const v of vectors) s.add(v);
  const stats = { candidates: 0, compared: 0 };
  const groups = s.groups(0.95, {}, stats);
  assert.equal(sets(groups.map((g) => g.members)), sets(bruteForceGroups(s, 0.95)));
  assert.ok(groups.length > 100, `${groups.length} groups`);
  for (const g of groups) assert.ok(g.similarity >= 0.95 && g.similarity <= 1);
  assert.ok(
    copyOf.every((from, i) => from < 0 || groups.some((g) => g.members.includes(i) && g.members.includes(from))),
    'every planted copy is grouped with its original',
  );
  assert.ok(stats.compared < 1500 * 20, `far fewer cosines than all pairs: ${stats.compared}`);
});

t('groupsYielding gives the same groups and lets timers run while it works', async () => {
  const { vectors } = data(3000, 9);
  const s = new NearDuplicateScanner(DIMS);
  for (const v of vectors) s.add(v);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const yielded = await s.groupsYielding(0.95, { sliceMs: 1 });
  clearInterval(timer);
  assert.equal(yielded, s.groups(0.95));
  assert.ok(ticks > 0, 'the event loop had turns');
});

t('in a worker thread: the same groups, fed in pages; an abort stops it', async () => {
  const { vectors } = data(3000, 11);
  const s = new NearDuplicateScanner(DIMS);
  for (const v of vectors) s.add(v);
  const thread = new NearDuplicateThread(DIMS);
  try {
    for (let i = 0; i < vectors.length; i += 200) thread.add(vectors.slice(i, i + 200));
    assert.is(thread.size, 3000);
    assert.equal(await thread.groups(0.95), s.groups(0.95));
  } finally {
    await thread.close();
  }
  const aborted = new NearDuplicateThread(DIMS);
  try {
    aborted.add(vectors);
    const controller = new AbortController();
    const pending = aborted.groups(0.95, controller.signal).catch((e: Error) => e);
    controller.abort(new Error('stop'));
    assert.is(((await pending) as Error).message, 'stop');
  } finally {
    await aborted.close();
  }
});

t('a thousand identical copies cost about a thousand checks, not half a million', () => {
  const s = new NearDuplicateScanner(DIMS);
  const v = Float32Array.from({ length: DIMS }, (_, i) => Math.sin(i));
  for (let i = 0; i < 1000; i++) s.add(v);
  const stats = { candidates: 0, compared: 0 };
  const [group] = s.groups(0.99, {}, stats);
  assert.is(group.members.length, 1000);
  assert.ok(stats.candidates < 5000, String(stats.candidates));
});

t('vectors of another length are refused; fewer than two items make no group', () => {
  const s = new NearDuplicateScanner(DIMS);
  assert.throws(() => s.add(new Float32Array(DIMS - 1)), /dims/);
  assert.equal(s.groups(0.9), []);
  s.add(new Float32Array(DIMS).fill(1));
  assert.equal(s.groups(0.9), []);
});

t.run();
