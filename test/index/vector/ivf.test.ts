/**
 * Coarse lists (IVF) in the vector index: a collection past the threshold gets
 * lists at rebuild (small ones keep one), queries scan the nearest lists with
 * recall@10 ≥ 0.95 on clustered data, upserts land in the nearest list and are
 * found, deletes keep the list counts, filtered queries still return k,
 * coverage and stats stay right, needsRebuild asks for lists, and a generation
 * from before IVF still answers until a rebuild upgrades it. The threshold and
 * probe are lowered through the tuning so the sets stay small.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nowIso } from '../../../src/platform/ids.js';
import { listsFor, nearestList, probeRowsFor, rankLists, residual, trainLists } from '../../../src/index/vector/ivf.js';
import { normalize, vectorBytes, vectorFromBytes } from '../../../src/index/vector/math.js';
import { recallAt } from '../../../src/index/vector/tuning.js';
import { type SimilarityModel, type VectorRow } from '../../../src/index/vector/types.js';
import { openDatabase, type Db } from '../../../src/storage/sqlite/database.js';
import {
  sqliteVectorIndex,
  type SqliteVectorIndex,
  type VectorIndexTuning,
} from '../../../src/index/vector/sqlite/sqliteVectorIndex.js';
import { clustered, dot, rng } from '../../helpers/vectors.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lumen-ivf-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
let fileNo = 0;
const tempDb = () => path.join(tmp, `v${++fileNo}.db`);

/** Small-set tuning: lists from 2,000 rows, 8 of them, a query probes ≥ 2 lists holding ≥ 1/8 of the rows. */
const SMALL: VectorIndexTuning = {
  ivfMinRows: 2_000,
  ivfLists: 8,
  ivfMinProbe: 2,
  ivfProbe: { fraction: 1 / 8, perCandidate: 1, minRows: 0 },
};

interface Ix {
  db: Db;
  ix: SqliteVectorIndex;
  mem: Map<string, VectorRow>;
}
function open(tuning: VectorIndexTuning = SMALL): Ix {
  const db = openDatabase(tempDb());
  return { db, ix: sqliteVectorIndex(db, tuning), mem: new Map() };
}
function put(t: Ix, rows: VectorRow[]) {
  const ins = t.db.prepare(
    `INSERT OR REPLACE INTO object_embeddings (object_id, model_id, similarity_model, media_id, dataset_id, dims, vector, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  t.db.transaction(() => {
    for (const r of rows) {
      const v = normalize(r.vector);
      ins.run(r.objectId, r.modelId, r.similarityModel, r.mediaId, r.collectionId, v.length, vectorBytes(v), nowIso());
      t.mem.set(r.objectId, { ...r, vector: v });
    }
    t.ix.sync.upsert(rows);
  })();
}
function drop(t: Ix, objectIds: string[]) {
  t.db.transaction(() => {
    for (const id of objectIds) {
      t.db.prepare(`DELETE FROM object_embeddings WHERE object_id = ?`).run(id);
      t.mem.delete(id);
    }
    t.ix.sync.remove(objectIds);
  })();
}
const row = (objectId: string, collectionId: string, vector: Float32Array, o: Partial<VectorRow> = {}): VectorRow => ({
  objectId,
  modelId: 'clip:test',
  similarityModel: 'objects',
  mediaId: `m-${objectId}`,
  collectionId,
  frameId: null,
  vector,
  ...o,
});
function exactTop(
  t: Ix,
  sm: SimilarityModel,
  datasets: string[],
  q: Float32Array,
  k: number,
  media?: Set<string>,
): string[] {
  const u = normalize(q);
  const ds = new Set(datasets);
  return [...t.mem.values()]
    .filter((r) => r.similarityModel === sm && ds.has(r.collectionId) && (!media || media.has(r.mediaId)))
    .map((r) => ({ id: r.objectId, s: dot(u, r.vector) }))
    .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1))
    .slice(0, k)
    .map((x) => x.id);
}
const liveGen = (t: Ix) =>
  t.db.prepare(`SELECT id FROM vector_indexes WHERE model_id = 'clip:test' AND state = 'live'`).pluck().get() as number;
const listRows = (t: Ix, ds: string) =>
  t.db
    .prepare(`SELECT list, rows FROM vec_index_${liveGen(t)}_lists WHERE dataset_id = ? ORDER BY list`)
    .all(ds) as Array<{ list: number; rows: number }>;
const centroidsOf = (t: Ix, ds: string) => {
  const rows = t.db
    .prepare(`SELECT centroid FROM vec_index_${liveGen(t)}_lists WHERE dataset_id = ? ORDER BY list`)
    .pluck()
    .all(ds) as Buffer[];
  const d = rows[0].byteLength >> 2;
  const c = new Float32Array(rows.length * d);
  rows.forEach((b, j) => c.set(vectorFromBytes(new Uint8Array(b)), j * d));
  const centre = t.db.prepare(`SELECT center FROM vector_indexes WHERE id = ?`).pluck().get(liveGen(t)) as Buffer;
  /** The list a vector belongs to: nearest centroid to its residual (the model's mean taken off). */
  const res = (v: Float32Array) => residual(normalize(v), vectorFromBytes(new Uint8Array(centre)));
  return { c, n: rows.length, res };
};

// ---------------------------------------------------------------- pure

const pure = suite('ivf: training and policy');

pure('k-means separates well-separated clusters, deterministically; nearest and ranked lists agree', async () => {
  const r = rng(1);
  const gen = clustered(r, 64, 8);
  const sample = Array.from({ length: 2000 }, gen);
  const a = await trainLists(sample, 8);
  const b = await trainLists(sample, 8);
  assert.equal(
    Buffer.from(a.buffer).toString('hex'),
    Buffer.from(b.buffer).toString('hex'),
    'same seed and sample, same centroids',
  );
  for (let j = 0; j < 8; j++)
    assert.ok(
      Math.abs(dot(a.subarray(j * 64, j * 64 + 64), a.subarray(j * 64, j * 64 + 64)) - 1) < 1e-4,
      'unit centroids',
    );
  // Every vector's list holds mostly vectors of its own cluster: the lists' sizes are balanced-ish and non-empty.
  const sizes = new Array(8).fill(0);
  for (const v of sample) sizes[nearestList(a, 8, v)]++;
  assert.ok(
    sizes.every((n) => n > 50),
    `list sizes ${sizes}`,
  );
  const v = sample[3];
  assert.is(rankLists(a, 8, v)[0], nearestList(a, 8, v));
  // Fewer points than lists: the extra lists stay empty.
  const few = await trainLists(sample.slice(0, 3), 5);
  assert.ok([0, 1, 2].includes(nearestList(few, 5, sample[1])));
});

pure('list count and probe rows', () => {
  assert.is(listsFor(50_000), 28);
  assert.is(listsFor(100_000), 40);
  assert.is(listsFor(1_000_000), 125);
  assert.is(listsFor(100), 8);
  assert.is(listsFor(1e9), 256);
  assert.is(probeRowsFor(1_000_000, 1024), 125_000);
  assert.is(probeRowsFor(100_000, 1024), 32_768);
  assert.is(probeRowsFor(10_000, 1024), 10_000, 'never more than the collection');
});

// ---------------------------------------------------------------- the index

const ix = suite('ivf: the index');

ix('rebuild gives a big collection lists (a small one none); recall@10 ≥ 0.95 scanning a few of them', async () => {
  const t = open();
  const r = rng(2);
  const gen = clustered(r, 128, 40);
  put(
    t,
    Array.from({ length: 5000 }, (_, i) => row(`a${i}`, 'A', gen())),
  );
  put(
    t,
    Array.from({ length: 300 }, (_, i) => row(`b${i}`, 'B', gen())),
  );
  let [s] = await t.ix.stats('clip:test');
  assert.is(s.lists, 0);
  assert.is(s.unlistedRows, 5000, 'A is past the threshold without lists');
  assert.ok(s.needsRebuild);
  await t.ix.rebuild('clip:test');
  [s] = await t.ix.stats('clip:test');
  assert.is(s.lists, 8, 'A got 8 lists, B none');
  assert.is(s.unlistedRows, 0);
  assert.not.ok(s.needsRebuild);
  assert.is(s.rows, 5300);
  const lr = listRows(t, 'A');
  assert.is(lr.length, 8);
  assert.is(
    lr.reduce((a, x) => a + x.rows, 0),
    5000,
    'list counts add up to the collection',
  );
  assert.ok(
    lr.every((x) => x.rows > 100),
    `balanced-ish lists ${lr.map((x) => x.rows)}`,
  );
  assert.is(listRows(t, 'B').length, 0);

  let sum = 0;
  let sumAll = 0;
  const queries = 40;
  for (let i = 0; i < queries; i++) {
    const q = gen();
    const truth = exactTop(t, 'objects', ['A'], q, 10);
    const { hits, info } = t.ix.searchWithInfo({
      modelId: 'clip:test',
      similarityModel: 'objects',
      vector: q,
      collectionIds: ['A'],
      k: 10,
    });
    assert.ok(info.lists >= 2 && info.lists < 8, `probed ${info.lists} lists`);
    assert.ok(info.scanned < 2500 && info.scanned >= 625, `scanned ${info.scanned}`);
    sum += recallAt(
      10,
      hits.map((h) => h.objectId),
      truth,
    );
    const all = t.ix.searchWithInfo({
      modelId: 'clip:test',
      similarityModel: 'objects',
      vector: q,
      collectionIds: ['A'],
      k: 10,
      probe: Infinity,
    });
    assert.is(all.info.lists, 0);
    assert.is(all.info.scanned, 5000);
    sumAll += recallAt(
      10,
      all.hits.map((h) => h.objectId),
      truth,
    );
  }
  console.log(
    `  clustered 5k × 128, 8 lists: recall@10 ${(sum / queries).toFixed(3)} probing, ${(sumAll / queries).toFixed(3)} every list`,
  );
  assert.ok(sum / queries >= 0.95, `recall@10 ${sum / queries}`);
  // Two collections, one with lists and one without, merge.
  const q = t.mem.get('b7')!.vector;
  const both = t.ix.searchWithInfo({
    modelId: 'clip:test',
    similarityModel: 'objects',
    vector: q,
    collectionIds: ['A', 'B'],
    k: 5,
  });
  assert.is(both.hits[0].objectId, 'b7');
  assert.ok(both.info.lists > 0);
  t.db.close();
});

ix(
  'upserts after the rebuild land in the nearest list and are found; deletes and moves keep the counts; coverage and stats follow',
  async () => {
    const t = open();
    const r = rng(3);
    const gen = clustered(r, 128, 40);
    put(
      t,
      Array.from({ length: 4000 }, (_, i) => row(`a${i}`, 'A', gen())),
    );
    await t.ix.rebuild('clip:test');
    const { c, n, res } = centroidsOf(t, 'A');
    const fresh = Array.from({ length: 50 }, (_, i) => row(`new${i}`, 'A', gen()));
    put(t, fresh);
    const g = liveGen(t);
    for (const f of fresh.slice(0, 10)) {
      const list = t.db.prepare(`SELECT list FROM vec_index_${g}_items WHERE object_id = ?`).pluck().get(f.objectId);
      assert.is(list, nearestList(c, n, res(f.vector)), 'the nearest centroid');
      const hits = await t.ix.search({
        modelId: 'clip:test',
        similarityModel: 'objects',
        vector: f.vector,
        collectionIds: ['A'],
        k: 3,
      });
      assert.is(hits[0].objectId, f.objectId, 'found through its list');
    }
    assert.is(
      listRows(t, 'A').reduce((a, x) => a + x.rows, 0),
      4050,
    );
    // Replace (new vector: maybe another list), delete, move to another collection.
    put(t, [row('a1', 'A', fresh[0].vector)]);
    drop(t, ['a2', 'a3', 'new5']);
    put(t, [row('a4', 'B', gen())]);
    const lr = listRows(t, 'A');
    assert.is(
      lr.reduce((a, x) => a + x.rows, 0),
      4050 - 3 - 1,
    );
    const perList = t.db
      .prepare(
        `SELECT list, count(*) AS n FROM vec_index_${g}_items WHERE dataset_id = 'A' GROUP BY list ORDER BY list`,
      )
      .all() as Array<{ list: number; n: number }>;
    assert.equal(
      lr.filter((x) => x.rows > 0).map((x) => [x.list, x.rows]),
      perList.map((x) => [x.list, x.n]),
      'list counts match the rows',
    );
    const hits = await t.ix.search({
      modelId: 'clip:test',
      similarityModel: 'objects',
      vector: fresh[0].vector,
      collectionIds: ['A'],
      k: 2,
    });
    assert.equal(hits.map((h) => h.objectId).sort(), ['a1', 'new0']);
    const none = await t.ix.search({
      modelId: 'clip:test',
      similarityModel: 'objects',
      vector: t.mem.get('a4')!.vector,
      collectionIds: ['A'],
      k: 50,
      probe: Infinity,
    });
    assert.not.ok(none.some((h) => ['a2', 'a3', 'a4', 'new5'].includes(h.objectId)));
    const [s] = await t.ix.stats('clip:test');
    assert.is(s.rows, 4050 - 3);
    assert.is(s.lists, 8);
    const cov = await t.ix.coverage('clip:test', ['A', 'B']);
    assert.is(cov.indexed, 4047);
    assert.ok(s.reclaimable < 2048, `holes ${s.reclaimable}`);
    t.db.close();
  },
);

ix(
  'filtered queries return k with lists: exact set, inside the scan (every list), post-filter (widened when the near lists run out)',
  async () => {
    const t = open({ ...SMALL, exactBase: 100, exactFraction: 0, resolveMaxMedia: 1000, unboundedMaxWork: 0 });
    const r = rng(4);
    const gen = clustered(r, 128, 40);
    const rows = Array.from({ length: 6000 }, (_, i) => row(`o${i}`, 'A', gen(), { mediaId: `m${Math.floor(i / 2)}` }));
    put(t, rows);
    await t.ix.rebuild('clip:test');
    const media = [...new Set(rows.map((x) => x.mediaId))];
    const pick = (count: number) => {
      const out = new Set<string>();
      while (out.size < count) out.add(media[Math.floor(r() * media.length)]);
      return out;
    };
    for (const [label, count, strategy, filter] of [
      ['rare', 30, 'exact', 'inside'],
      ['medium', 700, 'ann', 'inside'],
      ['common', 1500, 'ann', 'post'],
    ] as const) {
      const allowed = pick(count);
      for (let qi = 0; qi < 5; qi++) {
        const q = gen();
        const { hits, info } = t.ix.searchWithInfo({
          modelId: 'clip:test',
          similarityModel: 'objects',
          vector: q,
          collectionIds: ['A'],
          k: 20,
          mediaIds: [...allowed],
        });
        assert.is(hits.length, 20, `${label}: k hits`);
        assert.ok(
          hits.every((h) => allowed.has(h.mediaId)),
          `${label}: only allowed`,
        );
        assert.is(info.strategy, strategy, `${label}: strategy`);
        assert.is(info.filter, filter, `${label}: filter`);
        const rec = recallAt(
          20,
          hits.map((h) => h.objectId),
          exactTop(t, 'objects', ['A'], q, 20, allowed),
        );
        assert.ok(rec >= 0.85, `${label}: recall@20 ${rec}`);
      }
    }
    // Allowed items all far from the query (none in the 2 lists it probes): still k hits.
    const q = rows[0].vector;
    const { c, n, res } = centroidsOf(t, 'A');
    const near = new Set(rankLists(c, n, res(q)).slice(0, 2));
    const nearMedia = new Set(rows.filter((x) => near.has(nearestList(c, n, res(x.vector)))).map((x) => x.mediaId));
    const farMedia = media.filter((m) => !nearMedia.has(m)).slice(0, 1100);
    assert.ok(farMedia.length > 1000, `${farMedia.length} items wholly in far lists`);
    const { hits, info } = t.ix.searchWithInfo({
      modelId: 'clip:test',
      similarityModel: 'objects',
      vector: q,
      collectionIds: ['A'],
      k: 20,
      mediaIds: farMedia,
      probe: 2,
    });
    console.log(
      `  far allowed items: ${info.lists} lists probed, ${info.scanned} rows scanned, ${info.knnQueries} KNN statements`,
    );
    assert.is(hits.length, 20, 'k hits from the far lists');
    assert.ok(hits.every((h) => farMedia.includes(h.mediaId)));
    assert.is(info.filter, 'post');
    assert.is(info.lists, 0, 'widened to every list');
    t.db.close();
  },
);

ix(
  'a collection that outgrows its lists asks for a rebuild; so does one that crosses the threshold later',
  async () => {
    const t = open({ ...SMALL, ivfMinRows: 1000 });
    const r = rng(5);
    const gen = clustered(r, 64, 20);
    put(
      t,
      Array.from({ length: 1000 }, (_, i) => row(`a${i}`, 'A', gen())),
    );
    await t.ix.rebuild('clip:test');
    let [s] = await t.ix.stats('clip:test');
    assert.equal([s.lists, s.needsRebuild], [8, false]);
    put(
      t,
      Array.from({ length: 999 }, (_, i) => row(`b${i}`, 'B', gen())),
    );
    [s] = await t.ix.stats('clip:test');
    assert.not.ok(s.needsRebuild, 'B below the threshold');
    put(t, [row('b999', 'B', gen())]);
    [s] = await t.ix.stats('clip:test');
    assert.equal([s.needsRebuild, s.unlistedRows], [true, 1000], 'B crossed it');
    // B still answers (one scan of its partition).
    const hits = await t.ix.search({
      modelId: 'clip:test',
      similarityModel: 'objects',
      vector: t.mem.get('b5')!.vector,
      collectionIds: ['B'],
      k: 1,
    });
    assert.is(hits[0].objectId, 'b5');
    await t.ix.rebuild('clip:test');
    [s] = await t.ix.stats('clip:test');
    assert.equal([s.lists, s.needsRebuild], [16, false]);
    put(
      t,
      Array.from({ length: 3001 }, (_, i) => row(`c${i}`, 'A', gen())),
    );
    [s] = await t.ix.stats('clip:test');
    assert.equal([s.needsRebuild, s.unlistedRows], [true, 4001], 'A grew past 4× the rows its lists were trained on');
    t.db.close();
  },
);

ix(
  'a generation from before IVF (no list key, no _lists) answers, takes writes, and a rebuild upgrades it',
  async () => {
    const t = open();
    const r = rng(6);
    const gen = clustered(r, 64, 20);
    // The pre-IVF layout, as an older version created it.
    const at = nowIso();
    const id = Number(
      t.db
        .prepare(
          `INSERT INTO vector_indexes (model_id, dims, quantizer, center, state, created_at, built_at) VALUES ('clip:test', 64, 'sign-centered', NULL, 'live', ?, ?)`,
        )
        .run(at, at).lastInsertRowid,
    );
    const v = `vec_index_${id}`;
    t.db.exec(`
    CREATE VIRTUAL TABLE ${v} USING vec0(dataset_id text partition key, similarity_model text partition key, embedding bit[64]);
    CREATE VIRTUAL TABLE ${v}_sample USING vec0(dataset_id text partition key, similarity_model text partition key, embedding bit[64]);
    CREATE TABLE ${v}_items (id INTEGER PRIMARY KEY AUTOINCREMENT, object_id TEXT NOT NULL UNIQUE, media_id TEXT NOT NULL, frame_id TEXT,
      dataset_id TEXT NOT NULL, similarity_model TEXT NOT NULL);
    CREATE INDEX ${v}_items_media ON ${v}_items(media_id, similarity_model, dataset_id);
    CREATE INDEX ${v}_items_dataset ON ${v}_items(dataset_id, similarity_model);
    CREATE TABLE ${v}_f32 (id INTEGER PRIMARY KEY, vector BLOB NOT NULL);
    CREATE TABLE ${v}_q8 (id INTEGER PRIMARY KEY, q BLOB NOT NULL);
  `);
    put(
      t,
      Array.from({ length: 3000 }, (_, i) => row(`a${i}`, 'A', gen())),
    );
    drop(t, ['a1']);
    put(t, [row('a2', 'A', t.mem.get('a3')!.vector)]);
    let [s] = await t.ix.stats('clip:test');
    assert.equal([s.rows, s.lists, s.unlistedRows, s.needsRebuild], [2999, 0, 2999, true]);
    const q = t.mem.get('a10')!.vector;
    const before = t.ix.searchWithInfo({
      modelId: 'clip:test',
      similarityModel: 'objects',
      vector: q,
      collectionIds: ['A'],
      k: 10,
    });
    assert.is(before.hits[0].objectId, 'a10');
    assert.is(before.info.lists, 0);
    assert.equal(
      before.hits.map((h) => h.objectId),
      exactTop(t, 'objects', ['A'], q, 10),
    );
    await t.ix.rebuild('clip:test');
    [s] = await t.ix.stats('clip:test');
    assert.equal([s.rows, s.lists, s.needsRebuild], [2999, 8, false]);
    const after = t.ix.searchWithInfo({
      modelId: 'clip:test',
      similarityModel: 'objects',
      vector: q,
      collectionIds: ['A'],
      k: 10,
    });
    assert.is(after.hits[0].objectId, 'a10');
    assert.ok(after.info.lists > 0);
    assert.is(
      t.db.prepare(`SELECT count(*) FROM sqlite_master WHERE name = ?`).pluck().get(`${v}_items`),
      0,
      'the old generation is gone',
    );
    t.db.close();
  },
);

pure.run();
ix.run();
