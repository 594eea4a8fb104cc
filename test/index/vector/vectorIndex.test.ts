/**
 * The vector index (src/index/vector/sqlite/) on synthetic vectors: the
 * engine-neutral contract (vectorSuite.ts, also run on pgvector), then
 * SQLite's own: models kept apart, the similarity model filter,
 * item filters that never come back short (exact set, inside the scan, after
 * an over-fetching scan), keeping in step, recall of the quantised pass
 * against the exact answer on clustered data, rebuild and coverage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../../src/platform/ids.js';
import { Int8Cache } from '../../../src/index/vector/int8Cache.js';
import { normalize, vectorBytes } from '../../../src/index/vector/math.js';
import { quantizeBits, quantizeInt8 } from '../../../src/index/vector/quantize.js';
import { recallAt } from '../../../src/index/vector/tuning.js';
import { type SimilarityModel, type VectorRow } from '../../../src/index/vector/types.js';
import { openDatabase, type Db } from '../../../src/storage/sqlite/database.js';
import { openSqliteStorage } from '../../../src/storage/sqlite/index.js';
import {
  sqliteVectorIndex,
  type SqliteVectorIndex,
  type VectorIndexTuning,
} from '../../../src/index/vector/sqlite/sqliteVectorIndex.js';
import type { NewObject } from '../../../src/storage/types.js';
import { clustered, dot, randomUnit, rng } from '../../helpers/vectors.js';
import { vectorIndexSuite } from './vectorSuite.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lumen-vectors-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
let fileNo = 0;
const tempDb = () => path.join(tmp, `v${++fileNo}.db`);

// ---------------------------------------------------------------- synthetic vectors

// ---------------------------------------------------------------- fixtures

interface Ix {
  db: Db;
  ix: SqliteVectorIndex;
  /** What put() wrote, for the brute-force answer (reading 3 KB rows back from SQLite is slow). */
  mem: Map<string, VectorRow>;
}

function open(tuning?: VectorIndexTuning): Ix {
  const db = openDatabase(tempDb());
  return { db, ix: sqliteVectorIndex(db, tuning), mem: new Map() };
}

/** What the analysis store does: the float vector into object_embeddings and the index, in one transaction. */
function put(t: Ix, rows: VectorRow[]) {
  const ins = t.db.prepare(
    `INSERT OR REPLACE INTO object_embeddings (object_id, model_id, similarity_model, media_id, dataset_id, dims, vector, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  t.db.transaction(() => {
    for (const r of rows) {
      const v = normalize(r.vector);
      ins.run(r.objectId, r.modelId, r.similarityModel, r.mediaId, r.collectionId, v.length, vectorBytes(v), nowIso());
      t.mem.set(`${r.modelId}\u0000${r.objectId}`, { ...r, vector: v });
    }
    t.ix.sync.upsert(rows);
  })();
}

function row(objectId: string, collectionId: string, vector: Float32Array, o: Partial<VectorRow> = {}): VectorRow {
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

/** The exact answer by brute force over what put() wrote (less what the test removed: pass `gone`). */
function exactTop(
  t: Ix,
  modelId: string,
  sm: SimilarityModel,
  datasets: string[],
  q: Float32Array,
  k: number,
  mediaIds?: Set<string>,
): string[] {
  const u = normalize(q);
  const ds = new Set(datasets);
  return [...t.mem.values()]
    .filter(
      (r) =>
        r.modelId === modelId &&
        r.similarityModel === sm &&
        ds.has(r.collectionId) &&
        (!mediaIds || mediaIds.has(r.mediaId)),
    )
    .map((r) => ({ id: r.objectId, s: dot(u, r.vector) }))
    .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1))
    .slice(0, k)
    .map((x) => x.id);
}

// ---------------------------------------------------------------- pure pieces

const pure = suite('vector index: quantiser');

pure('bits are packed least significant first, like vec_quantize_binary', () => {
  const t = open();
  const v = Float32Array.from({ length: 16 }, (_, i) => (i === 0 || i === 8 || i === 9 ? 1 : -1));
  const ours = Buffer.from(quantizeBits(v, null)).toString('hex');
  const theirs = t.db.prepare(`SELECT hex(vec_quantize_binary(?))`).pluck().get(vectorBytes(v)) as string;
  assert.is(ours, theirs.toLowerCase());
  assert.is(ours, '0103');
  t.db.close();
});

pure(
  'int8 copies: cosine error ~3e-4 (max < 3e-3 at 256-d); the cache evicts least recently used slabs past its budget',
  () => {
    const r = rng(9);
    const cache = new Int8Cache(3 * 1024 * (256 + 4));
    let worst = 0;
    let sumErr = 0;
    const vs = Array.from({ length: 4000 }, () => randomUnit(r, 256));
    vs.forEach((v, i) => cache.put(1, i + 1, quantizeInt8(v)));
    const q = randomUnit(r, 256);
    for (let i = 3000; i < 4000; i++) {
      const e = Math.abs(cache.dot(1, i + 1, q)! - dot(vs[i], q));
      worst = Math.max(worst, e);
      sumErr += e;
    }
    assert.ok(worst < 3e-3, `int8 worst error ${worst}`);
    assert.ok(sumErr / 1000 < 6e-4, `int8 mean error ${sumErr / 1000}`);
    assert.is(cache.size.slabs, 3, 'budget of three slabs');
    assert.is(cache.dot(1, 1, q), null, 'the oldest slab went');
    assert.is(cache.rows(1), 4000 - 1023, 'slab 0 (rowids 1..1023) went, 1024..4000 stay');
    cache.dropGeneration(1);
    assert.is(cache.size.bytes, 0);
  },
);

// ---------------------------------------------------------------- behaviour

const behaviour = suite('vector index: partitions, models, filters, writes');

behaviour('models never mix: separate tables, own dims; unknown model answers nothing', async () => {
  const t = open();
  const r = rng(2);
  const v64 = Array.from({ length: 50 }, (_, i) => row(`o${i}`, 'A', randomUnit(r, 64), { modelId: 'clip:a' }));
  const v128 = Array.from({ length: 50 }, (_, i) => row(`o${i}`, 'A', randomUnit(r, 128), { modelId: 'clip:b' }));
  put(t, [...v64, ...v128]);
  const stats = await t.ix.stats();
  assert.equal(stats.map((s) => [s.modelId, s.dims, s.rows, s.indexDtype, s.sourceDtype]).sort(), [
    ['clip:a', 64, 50, 'bit', 'float32'],
    ['clip:b', 128, 50, 'bit', 'float32'],
  ]);
  const hitA = await t.ix.search({
    modelId: 'clip:a',
    similarityModel: 'objects',
    vector: v64[3].vector,
    collectionIds: ['A'],
    k: 1,
  });
  const hitB = await t.ix.search({
    modelId: 'clip:b',
    similarityModel: 'objects',
    vector: v128[9].vector,
    collectionIds: ['A'],
    k: 1,
  });
  assert.is(hitA[0].objectId, 'o3');
  assert.ok(Math.abs(hitA[0].similarity - 1) < 1e-5);
  assert.is(hitB[0].objectId, 'o9');
  assert.ok(Math.abs(hitB[0].similarity - 1) < 1e-5, "rescored against its own model's float vector");
  try {
    await t.ix.search({
      modelId: 'clip:a',
      similarityModel: 'objects',
      vector: v128[0].vector,
      collectionIds: ['A'],
      k: 1,
    });
    assert.unreachable('dims mismatch must throw');
  } catch (e) {
    assert.match(String(e), /64 dims/);
  }
  assert.throws(() => t.ix.sync.upsert([row('x', 'A', randomUnit(r, 128), { modelId: 'clip:a' })]), /64 dims/);
  assert.equal(
    await t.ix.search({
      modelId: 'nope',
      similarityModel: 'objects',
      vector: v64[0].vector,
      collectionIds: ['A'],
      k: 1,
    }),
    [],
  );
  t.db.close();
});

behaviour('the similarity model filters inside the scan: k faces among many objects', async () => {
  const t = open({ unboundedMaxWork: 0 });
  const r = rng(3);
  const rows = Array.from({ length: 3000 }, (_, i) =>
    row(`o${i}`, 'A', randomUnit(r, 64), { similarityModel: i % 100 === 0 ? 'faces' : 'objects' }),
  );
  put(t, rows);
  const q = rows[5].vector; // an object: the nearest face is far from it
  for (const strategy of ['auto', 'ann'] as const) {
    const { hits, info } = t.ix.searchWithInfo({
      modelId: 'clip:test',
      similarityModel: 'faces',
      vector: q,
      collectionIds: ['A'],
      k: 10,
      strategy,
    });
    assert.is(hits.length, 10);
    assert.ok(
      hits.every((h) => Number(h.objectId.slice(1)) % 100 === 0),
      'only faces',
    );
    assert.equal(
      hits.map((h) => h.objectId),
      exactTop(t, 'clip:test', 'faces', ['A'], q, 10),
    );
    // 30 faces: small enough to re-rank them all; forced through the first pass, the metadata filter keeps objects out of the KNN.
    assert.is(info.strategy, strategy === 'auto' ? 'exact' : 'ann');
  }
  t.db.close();
});

behaviour(
  'item filters return k when k match: rare (exact), medium (inside the scan), common (post-filter, refilled)',
  async () => {
    const t = open({ exactBase: 200, exactFraction: 0, resolveMaxMedia: 1000, unboundedMaxWork: 0 });
    const r = rng(4);
    const n = 12_000;
    const gen = clustered(r, 128, 40);
    // Three vectors per item.
    const rows = Array.from({ length: n }, (_, i) =>
      row(`o${i}`, i % 2 ? 'A' : 'B', gen(), { mediaId: `m${Math.floor(i / 3)}` }),
    );
    put(t, rows);
    const media = [...new Set(rows.map((x) => x.mediaId))];
    const pick = (count: number) => {
      const out = new Set<string>();
      while (out.size < count) out.add(media[Math.floor(r() * media.length)]);
      return out;
    };
    const cases: Array<[string, number, string, string]> = [
      ['rare', 20, 'exact', 'inside'],
      ['medium', 600, 'ann', 'inside'],
      ['common', 2500, 'ann', 'post'],
      ['very rare among the best', 1200, 'ann', 'post'],
    ];
    for (const [label, count, strategy, filter] of cases) {
      const allowed = pick(count);
      for (let qi = 0; qi < 5; qi++) {
        const q = gen();
        const { hits, info } = t.ix.searchWithInfo({
          modelId: 'clip:test',
          similarityModel: 'objects',
          vector: q,
          collectionIds: ['A', 'B'],
          k: 20,
          mediaIds: [...allowed],
        });
        assert.is(hits.length, 20, `${label}: k hits`);
        assert.ok(
          hits.every((h) => allowed.has(h.mediaId)),
          `${label}: only allowed items`,
        );
        assert.is(info.strategy, strategy, `${label}: strategy`);
        assert.is(info.filter, filter, `${label}: filter`);
        const truth = exactTop(t, 'clip:test', 'objects', ['A', 'B'], q, 20, allowed);
        const rec = recallAt(
          20,
          hits.map((h) => h.objectId),
          truth,
        );
        assert.ok(rec >= 0.85, `${label}: recall@20 ${rec}`);
      }
    }
    // Fewer matches than k: all of them, no padding.
    const few = new Set(['m1', 'm2']);
    const hits = await t.ix.search({
      modelId: 'clip:test',
      similarityModel: 'objects',
      vector: gen(),
      collectionIds: ['A', 'B'],
      k: 20,
      mediaIds: [...few],
    });
    assert.is(hits.length, 6);
    assert.equal(
      await t.ix.search({
        modelId: 'clip:test',
        similarityModel: 'objects',
        vector: gen(),
        collectionIds: ['A', 'B'],
        k: 20,
        mediaIds: [],
      }),
      [],
    );
    t.db.close();
  },
);

behaviour('upsert replaces, remove and removeMedia delete; counts, holes and stats follow', async () => {
  const t = open();
  const r = rng(5);
  const rows = Array.from({ length: 100 }, (_, i) => row(`o${i}`, 'A', randomUnit(r, 64), { mediaId: `m${i % 10}` }));
  put(t, rows);
  const q = randomUnit(r, 64);
  // Replace o1's vector with the query itself: it becomes the best match.
  put(t, [row('o1', 'A', q, { mediaId: 'm1' })]);
  let hits = await t.ix.search({
    modelId: 'clip:test',
    similarityModel: 'objects',
    vector: q,
    collectionIds: ['A'],
    k: 3,
  });
  assert.is(hits[0].objectId, 'o1');
  assert.ok(hits[0].similarity > 0.9999);
  // Moving an object to another collection (partition keys cannot be updated in vec0): found there, not here.
  put(t, [row('o2', 'B', q, { mediaId: 'm2' })]);
  hits = await t.ix.search({ modelId: 'clip:test', similarityModel: 'objects', vector: q, collectionIds: ['B'], k: 3 });
  assert.equal(
    hits.map((h) => h.objectId),
    ['o2'],
  );
  await t.ix.remove(['o1', 'missing']);
  hits = await t.ix.search({
    modelId: 'clip:test',
    similarityModel: 'objects',
    vector: q,
    collectionIds: ['A'],
    k: 100,
  });
  assert.is(hits.length, 98);
  assert.not.ok(hits.some((h) => h.objectId === 'o1' || h.objectId === 'o2'));
  await t.ix.removeMedia(['m3', 'm4']);
  hits = await t.ix.search({
    modelId: 'clip:test',
    similarityModel: 'objects',
    vector: q,
    collectionIds: ['A', 'B'],
    k: 100,
  });
  assert.is(hits.length, 100 - 1 - 20);
  assert.not.ok(hits.some((h) => h.mediaId === 'm3' || h.mediaId === 'm4'));
  const [s] = await t.ix.stats('clip:test');
  assert.is(s.rows, 79);
  assert.is(s.state, 'live');
  assert.is(s.centered, false, 'created on first write, without a mean');
  const deleted = t.db.prepare(`SELECT deleted_rows FROM vector_indexes`).pluck().get();
  assert.is(deleted, 2 + 1 + 20, 'replaced + removed');
  // Removing under every model.
  put(t, [row('o5', 'A', randomUnit(r, 32), { modelId: 'other' })]);
  await t.ix.remove(['o5']);
  assert.is((await t.ix.stats('other'))[0].rows, 0);
  assert.is((await t.ix.stats('clip:test'))[0].rows, 78);
  t.db.close();
});

behaviour('recall@10 ≥ 0.95 against the exact answer on clustered vectors (bounded first pass)', async () => {
  for (const [label, tuning] of [
    // Through sqlite-vec's KNN statements (no in-memory codes), then over the codes in memory.
    ['bounded by the sample', { unboundedMaxWork: 0, codeCacheBytes: 0 }],
    ['unbounded', { unboundedMaxWork: Number.MAX_SAFE_INTEGER, codeCacheBytes: 0 }],
    ['in memory', {}],
  ] as const) {
    const t = open(tuning);
    const r = rng(6);
    const gen = clustered(r, 256, 15);
    const rows = Array.from({ length: 15_000 }, (_, i) => row(`o${i}`, 'A', gen()));
    put(t, rows);
    await t.ix.rebuild('clip:test'); // centre the quantiser on the data's mean
    await t.ix.warm('clip:test');
    let sum = 0;
    const queries = 40;
    let bounded = 0;
    for (let i = 0; i < queries; i++) {
      const q = gen();
      const { hits, info } = t.ix.searchWithInfo({
        modelId: 'clip:test',
        similarityModel: 'objects',
        vector: q,
        collectionIds: ['A'],
        k: 10,
      });
      assert.is(info.firstPass, label === 'in memory' ? 'memory' : 'sqlite');
      if (info.threshold !== null) bounded++;
      sum += recallAt(
        10,
        hits.map((h) => h.objectId),
        exactTop(t, 'clip:test', 'objects', ['A'], q, 10),
      );
    }
    const recall = sum / queries;
    console.log(
      `  clustered 15k × 256, ${label}: recall@10 ${recall.toFixed(3)} (${bounded}/${queries} queries bounded)`,
    );
    assert.ok(recall >= 0.95, `${label}: recall@10 ${recall}`);
    if (label === 'bounded by the sample') assert.ok(bounded > queries / 2, 'the bound was used');
    t.db.close();
  }
});

// ---------------------------------------------------------------- rebuild and coverage (through the storage layer)

const lib = suite('vector index: rebuild and coverage');

async function library() {
  const s = openSqliteStorage(tempDb());
  const user = await s.accounts.createUser({
    id: newUuid(),
    email: `u-${newUuid()}@example.com`,
    name: 'U',
    createdAt: nowIso(),
  });
  const orgId = newUuid();
  await s.accounts.createOrganization({ id: orgId, name: 'Org', slug: `org-${orgId.slice(0, 8)}` }, user.id);
  const at = nowIso();
  const colls: string[] = [];
  for (const name of ['One', 'Two']) {
    colls.push(
      (
        await s.collections.create({
          id: newUuid(),
          organizationId: orgId,
          name,
          icon: null,
          type: 'media',
          createdAt: at,
          updatedAt: at,
          createdById: user.id,
        })
      ).id,
    );
  }
  const addImage = async (collId: string) => {
    const id = newMediaId();
    const frameId = newMediaId();
    await s.media.insert(
      {
        id,
        collectionId: collId,
        organizationId: orgId,
        parentPath: pathLabel(collId),
        type: 'image',
        name: `${id.slice(0, 6)}.jpg`,
        blobKey: `blob-${id}`,
        mimeType: 'image/jpeg',
        width: 640,
        height: 480,
        duration: null,
        sizeBytes: 1000,
        exif: {},
        metadata: {},
        processingStatus: 'ready',
        createdById: user.id,
      },
      [{ id: frameId, timestamp: '0', blobKey: `frame-${id}`, width: 640, height: 480 }],
    );
    return { mediaId: id, frameId };
  };
  return { s, colls, addImage, userId: user.id };
}

const object = (vector: Float32Array, modelId: string, sm: SimilarityModel = 'objects'): NewObject => {
  const id = newMediaId();
  return {
    id,
    type: sm === 'faces' ? 'face' : 'thing',
    label: 'x',
    blobKey: null,
    polygon: [
      { x: 0, y: 0 },
      { x: 1, y: 0 },
      { x: 1, y: 1 },
    ],
    confidence: 0.9,
    model: 'det:test',
    similarityModel: sm,
    embedding: { modelId, vector },
  };
};

lib(
  'rebuild indexes object_embeddings (active objects only), centres, keeps in step while it runs, swaps',
  async () => {
    const L = await library();
    const ix = sqliteVectorIndex(L.s.db);
    const r = rng(7);
    const gen = clustered(r, 64, 10);
    const objects: Array<{ id: string; mediaId: string; frameId: string; v: Float32Array }> = [];
    for (let i = 0; i < 60; i++) {
      const { mediaId, frameId } = await L.addImage(L.colls[i % 2]);
      const objs = [object(gen(), 'clip:v1'), object(gen(), 'clip:v1')];
      await L.s.analysis.replaceFrameAnalysis(frameId, { captions: [], objects: objs });
      for (const o of objs) objects.push({ id: o.id, mediaId, frameId, v: o.embedding!.vector });
    }
    // The analysis store keeps the index in step; drop it to start as after this migration on an old database.
    assert.equal(await ix.unindexedModels(), []);
    await ix.dropModel('clip:v1');
    assert.equal(await ix.unindexedModels(), ['clip:v1']);
    await L.s.analysis.correctObject(objects[0].id, { deleted: true });
    const late = objects[1];
    let progress = 0;
    const res = await ix.rebuild('clip:v1', {
      batchSize: 16,
      onProgress: (n) => {
        progress = n;
        // A write while the rebuild runs reaches the generation being built too.
        if (n === 16)
          ix.sync.upsert([
            {
              objectId: 'late-extra',
              modelId: 'clip:v1',
              similarityModel: 'objects',
              mediaId: late.mediaId,
              collectionId: L.colls[1],
              frameId: late.frameId,
              vector: late.v,
            },
          ]);
      },
    });
    assert.is(res.rows, 119 + 1, 'all but the deleted object, plus the one written meanwhile');
    assert.ok(progress >= 119);
    const [s] = await ix.stats('clip:v1');
    assert.is(s.state, 'live');
    assert.ok(s.centered);
    assert.is(s.rows, 120);
    assert.equal(await ix.unindexedModels(), []);
    const hits = await ix.search({
      modelId: 'clip:v1',
      similarityModel: 'objects',
      vector: objects[5].v,
      collectionIds: L.colls,
      k: 3,
    });
    assert.is(hits[0].objectId, objects[5].id);
    assert.is(hits[0].frameId, objects[5].frameId, 'frame id from detected_objects');
    assert.ok(
      (
        await ix.search({
          modelId: 'clip:v1',
          similarityModel: 'objects',
          vector: objects[0].v,
          collectionIds: L.colls,
          k: 120,
        })
      ).every((h) => h.objectId !== objects[0].id),
    );
    // Rebuilding again drops the old generation.
    await ix.rebuild('clip:v1');
    const tables = L.s.db
      .prepare(
        `SELECT count(*) FROM sqlite_master WHERE name LIKE 'vec_index_%' AND type = 'table' AND name NOT LIKE '%\\_%\\_%' ESCAPE '\\'`,
      )
      .pluck()
      .get();
    assert.ok((await ix.stats()).length === 1, `one generation left (${tables})`);
    await L.s.close();
  },
);

lib('coverage: a new model fills while the old one answers; switch at 1', async () => {
  const L = await library();
  const ix = sqliteVectorIndex(L.s.db);
  const r = rng(8);
  const items: Array<{ frameId: string; mediaId: string; coll: string; objs: NewObject[] }> = [];
  for (let i = 0; i < 20; i++) {
    const coll = L.colls[i % 2];
    const { mediaId, frameId } = await L.addImage(coll);
    const objs = [object(randomUnit(r, 32), 'clip:old'), object(randomUnit(r, 32), 'face:old', 'faces')];
    await L.s.analysis.replaceFrameAnalysis(frameId, { captions: [], objects: objs });
    ix.sync.upsert(
      objs.map((o) => ({
        objectId: o.id,
        modelId: o.embedding!.modelId,
        similarityModel: o.similarityModel!,
        mediaId,
        collectionId: coll,
        frameId,
        vector: o.embedding!.vector,
      })),
    );
    items.push({ frameId, mediaId, coll, objs });
  }
  let c = await ix.coverage('clip:old', L.colls, 'objects');
  assert.equal([c.indexed, c.objects, c.fraction, c.live], [20, 20, 1, true]);
  c = await ix.coverage('clip:old', L.colls);
  assert.equal([c.indexed, c.objects], [20, 40], 'all similarity models: faces have no clip vectors');
  // Re-embed half of collection One's objects with a new model (512 → 48 dims here).
  const one = items.filter((x) => x.coll === L.colls[0]);
  ix.sync.upsert(
    one.slice(0, 5).map((x) => ({
      objectId: x.objs[0].id,
      modelId: 'clip:new',
      similarityModel: 'objects' as const,
      mediaId: x.mediaId,
      collectionId: x.coll,
      frameId: x.frameId,
      vector: randomUnit(r, 48),
    })),
  );
  c = await ix.coverage('clip:new', [L.colls[0]], 'objects');
  assert.equal([c.indexed, c.objects, c.fraction], [5, 10, 0.5]);
  assert.is((await ix.coverage('clip:new', L.colls, 'objects')).fraction, 0.25);
  assert.is((await ix.coverage('nothing', L.colls)).fraction, 0);
  // The old model still answers.
  const hits = await ix.search({
    modelId: 'clip:old',
    similarityModel: 'objects',
    vector: items[0].objs[0].embedding!.vector,
    collectionIds: L.colls,
    k: 1,
  });
  assert.is(hits[0].objectId, items[0].objs[0].id);
  await ix.dropModel('clip:old');
  assert.equal(
    await ix.search({
      modelId: 'clip:old',
      similarityModel: 'objects',
      vector: items[0].objs[0].embedding!.vector,
      collectionIds: L.colls,
      k: 1,
    }),
    [],
  );
  await L.s.close();
});

pure.run();
behaviour.run();
lib.run();
vectorIndexSuite('sqlite', async () => {
  const t = open();
  return {
    ix: t.ix,
    put: async (rows) => put(t, rows),
    close: async () => {
      t.db.close();
    },
  };
});
