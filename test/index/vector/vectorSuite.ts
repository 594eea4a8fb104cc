/**
 * The engine-neutral contract of a VectorIndex, run against SQLite (vectorIndex.test.ts) and pgvector on
 * PGlite (pgVectorIndex.test.ts): collections and models kept apart, the similarity model filter, item
 * filters that return k whenever k allowed vectors exist (a very selective one included), keeping in step
 * with writes and deletes, and recall@10 against the exact answer.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { normalize } from '../../../src/index/vector/math.js';
import { recallAt } from '../../../src/index/vector/tuning.js';
import type { SimilarityModel, VectorIndex, VectorQuery, VectorRow } from '../../../src/index/vector/types.js';
import { clustered, dot, randomUnit, rng } from '../../helpers/vectors.js';

/** One empty index and the way its engine writes vectors. */
export interface VectorFixture {
  ix: VectorIndex;
  /** What the analysis store does: the vectors into object_embeddings, and into the index (by the store or by triggers). */
  put(rows: VectorRow[]): Promise<void>;
  close(): Promise<void>;
}

export function row(
  objectId: string,
  collectionId: string,
  vector: Float32Array,
  o: Partial<VectorRow> = {},
): VectorRow {
  return {
    objectId,
    modelId: 'clip:test',
    similarityModel: 'objects',
    mediaId: `m-${objectId}`,
    collectionId,
    frameId: `f-${objectId}`,
    vector,
    ...o,
  };
}

/** A fixture that remembers what was put, for the brute-force answer. */
interface Ix extends VectorFixture {
  mem: Map<string, VectorRow>;
}

async function openIx(open: () => Promise<VectorFixture>): Promise<Ix> {
  const f = await open();
  const mem = new Map<string, VectorRow>();
  return {
    ...f,
    mem,
    async put(rows) {
      await f.put(rows);
      for (const r of rows) mem.set(`${r.modelId}\u0000${r.objectId}`, { ...r, vector: normalize(r.vector) });
    },
  };
}

/** The exact answer by brute force over what put() wrote (less `gone`). */
function exactTop(t: Ix, q: VectorQuery, gone: Set<string> = new Set()): string[] {
  const u = normalize(q.vector);
  const ds = new Set(q.collectionIds);
  const allowed = q.mediaIds ? new Set(q.mediaIds) : null;
  return [...t.mem.values()]
    .filter(
      (r) =>
        r.modelId === q.modelId &&
        r.similarityModel === q.similarityModel &&
        ds.has(r.collectionId) &&
        !gone.has(r.objectId) &&
        (!allowed || allowed.has(r.mediaId)),
    )
    .map((r) => ({ id: r.objectId, s: dot(u, r.vector) }))
    .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1))
    .slice(0, q.k)
    .map((x) => x.id);
}

const query = (
  vector: Float32Array,
  collectionIds: string[],
  k: number,
  o: Partial<VectorQuery> = {},
): VectorQuery => ({
  modelId: 'clip:test',
  similarityModel: 'objects' as SimilarityModel,
  vector,
  collectionIds,
  k,
  ...o,
});

export function vectorIndexSuite(name: string, open: () => Promise<VectorFixture>): void {
  const test = suite(`vector index contract (${name})`);
  let t0 = 0;
  test.before.each(() => {
    t0 = performance.now();
  });
  test.after.each((ctx) => {
    if (process.env.VECTOR_SUITE_TIMES) console.log(`  ${ctx.__test__}: ${(performance.now() - t0).toFixed(0)} ms`);
  });

  test("a collection never returns another collection's vectors; several merge; none or unknown: []", async () => {
    const t = await openIx(open);
    const r = rng(1);
    const a = Array.from({ length: 300 }, (_, i) => row(`a${i}`, 'A', randomUnit(r, 64)));
    const b = Array.from({ length: 300 }, (_, i) => row(`b${i}`, 'B', randomUnit(r, 64)));
    await t.put([...a, ...b]);
    const hitsA = await t.ix.search(query(b[7].vector, ['A'], 50));
    assert.is(hitsA.length, 50);
    assert.ok(hitsA.every((h) => h.collectionId === 'A' && h.objectId.startsWith('a')));
    const both = await t.ix.search(query(b[7].vector, ['A', 'B'], 5));
    assert.is(both[0].objectId, 'b7');
    assert.ok(Math.abs(both[0].similarity - 1) < 1e-5, `self similarity ${both[0].similarity}`);
    assert.is(both[0].frameId, 'f-b7');
    assert.is(both[0].mediaId, 'm-b7');
    for (let i = 1; i < both.length; i++) assert.ok(both[i - 1].similarity >= both[i].similarity, 'best first');
    assert.equal(await t.ix.search(query(b[7].vector, ['C'], 5)), []);
    assert.equal(await t.ix.search(query(b[7].vector, [], 5)), []);
    await t.close();
  });

  test('models never mix, each with its own dims; a vector of other dims is refused', async () => {
    const t = await openIx(open);
    const r = rng(2);
    const v64 = Array.from({ length: 50 }, (_, i) => row(`o${i}`, 'A', randomUnit(r, 64), { modelId: 'clip:a' }));
    const v128 = Array.from({ length: 50 }, (_, i) => row(`o${i}`, 'A', randomUnit(r, 128), { modelId: 'clip:b' }));
    await t.put([...v64, ...v128]);
    const stats = await t.ix.stats();
    assert.equal(stats.map((s) => [s.modelId, s.dims, s.rows, s.sourceDtype]).sort(), [
      ['clip:a', 64, 50, 'float32'],
      ['clip:b', 128, 50, 'float32'],
    ]);
    const hitA = await t.ix.search(query(v64[3].vector, ['A'], 1, { modelId: 'clip:a' }));
    const hitB = await t.ix.search(query(v128[9].vector, ['A'], 1, { modelId: 'clip:b' }));
    assert.is(hitA[0].objectId, 'o3');
    assert.is(hitB[0].objectId, 'o9');
    assert.ok(Math.abs(hitB[0].similarity - 1) < 1e-5, "scored against its own model's vector");
    try {
      await t.ix.search(query(v128[0].vector, ['A'], 1, { modelId: 'clip:a' }));
      assert.unreachable('dims mismatch must throw');
    } catch (e) {
      assert.match(String(e), /64 dims/);
    }
    try {
      await t.put([row('x', 'A', randomUnit(r, 128), { modelId: 'clip:a' })]);
      assert.unreachable('dims mismatch must throw');
    } catch (e) {
      assert.match(String(e), /64 dims/);
    }
    assert.equal(await t.ix.search(query(v64[0].vector, ['A'], 1, { modelId: 'nope' })), []);
    await t.close();
  });

  test('the similarity model filters: k faces among many objects, exactly the best', async () => {
    const t = await openIx(open);
    const r = rng(3);
    const rows = Array.from({ length: 3000 }, (_, i) =>
      row(`o${i}`, 'A', randomUnit(r, 64), { similarityModel: i % 100 === 0 ? 'faces' : 'objects' }),
    );
    await t.put(rows);
    const q = query(rows[5].vector, ['A'], 10, { similarityModel: 'faces' });
    const hits = await t.ix.search(q);
    assert.equal(
      hits.map((h) => h.objectId),
      exactTop(t, q),
    );
    await t.close();
  });

  test('item filters return k when k allowed exist: very selective, selective, broad; fewer: all; none: []', async () => {
    const t = await openIx(open);
    const r = rng(4);
    const gen = clustered(r, 128, 40);
    // Three vectors per item, two collections.
    const rows = Array.from({ length: 6000 }, (_, i) =>
      row(`o${i}`, i % 2 ? 'A' : 'B', gen(), { mediaId: `m${Math.floor(i / 3)}` }),
    );
    await t.put(rows);
    const media = [...new Set(rows.map((x) => x.mediaId))];
    const pick = (count: number) => {
      const out = new Set<string>();
      while (out.size < count) out.add(media[Math.floor(r() * media.length)]);
      return [...out];
    };
    for (const [label, count] of [
      ['very selective', 4],
      ['selective', 60],
      ['broad', 1500],
    ] as const) {
      const allowed = pick(count);
      for (let qi = 0; qi < 4; qi++) {
        const q = query(gen(), ['A', 'B'], 10, { mediaIds: allowed });
        const hits = await t.ix.search(q);
        assert.is(hits.length, 10, `${label}: k hits`);
        assert.ok(
          hits.every((h) => allowed.includes(h.mediaId)),
          `${label}: only allowed items`,
        );
        const rec = recallAt(
          10,
          hits.map((h) => h.objectId),
          exactTop(t, q),
        );
        assert.ok(rec >= 0.8, `${label}: recall@10 ${rec}`);
      }
    }
    const few = await t.ix.search(query(gen(), ['A', 'B'], 20, { mediaIds: ['m1', 'm2'] }));
    assert.is(few.length, 6, 'fewer than k: all of them, no padding');
    assert.equal(await t.ix.search(query(gen(), ['A', 'B'], 20, { mediaIds: [] })), []);
    await t.close();
  });

  test('upsert replaces; remove and removeMedia delete under every model; stats follow', async () => {
    const t = await openIx(open);
    const r = rng(5);
    const rows = Array.from({ length: 100 }, (_, i) => row(`o${i}`, 'A', randomUnit(r, 64), { mediaId: `m${i % 10}` }));
    await t.put(rows);
    const q = randomUnit(r, 64);
    await t.put([row('o1', 'A', q, { mediaId: 'm1' })]);
    let hits = await t.ix.search(query(q, ['A'], 3));
    assert.is(hits[0].objectId, 'o1');
    assert.ok(hits[0].similarity > 0.9999);
    // Moved to another collection: found there, not here.
    await t.put([row('o2', 'B', q, { mediaId: 'm2' })]);
    hits = await t.ix.search(query(q, ['B'], 3));
    assert.equal(
      hits.map((h) => h.objectId),
      ['o2'],
    );
    await t.ix.remove(['o1', 'missing']);
    hits = await t.ix.search(query(q, ['A'], 100));
    assert.is(hits.length, 98);
    assert.not.ok(hits.some((h) => h.objectId === 'o1' || h.objectId === 'o2'));
    await t.ix.removeMedia(['m3', 'm4']);
    hits = await t.ix.search(query(q, ['A', 'B'], 100));
    assert.is(hits.length, 100 - 1 - 20);
    assert.not.ok(hits.some((h) => h.mediaId === 'm3' || h.mediaId === 'm4'));
    const [s] = await t.ix.stats('clip:test');
    assert.is(s.rows, 79);
    assert.is(s.state, 'live');
    await t.put([row('o5', 'A', randomUnit(r, 32), { modelId: 'other' })]);
    await t.ix.remove(['o5']);
    assert.is((await t.ix.stats('other'))[0].rows, 0);
    assert.is((await t.ix.stats('clip:test'))[0].rows, 78);
    await t.close();
  });

  test('recall@10 ≥ 0.95 against the exact answer (4,000 clustered × 256, unfiltered and filtered)', async () => {
    const t = await openIx(open);
    const r = rng(6);
    const gen = clustered(r, 256, 15);
    const rows = Array.from({ length: 4000 }, (_, i) => row(`o${i}`, 'A', gen(), { mediaId: `m${i % 2000}` }));
    await t.put(rows);
    await t.ix.rebuild('clip:test');
    await t.ix.warm('clip:test');
    const broad = [...new Set(rows.map((x) => x.mediaId))].filter((_, i) => i % 3 === 0);
    for (const [label, mediaIds] of [
      ['unfiltered', null],
      ['a third of the items', broad],
    ] as const) {
      let sum = 0;
      const queries = 40;
      const t0 = performance.now();
      for (let i = 0; i < queries; i++) {
        const q = query(gen(), ['A'], 10, { mediaIds });
        const hits = await t.ix.search(q);
        sum += recallAt(
          10,
          hits.map((h) => h.objectId),
          exactTop(t, q),
        );
      }
      const ms = (performance.now() - t0) / queries;
      const recall = sum / queries;
      console.log(`  ${name}: 4k × 256 ${label}: recall@10 ${recall.toFixed(3)}, ${ms.toFixed(1)} ms/query`);
      assert.ok(recall >= 0.95, `${label}: recall@10 ${recall}`);
    }
    await t.close();
  });

  test.run();
}
