/**
 * Face clustering: the online algorithm on synthetic unit vectors, the SQLite
 * store (faces written through the analysis store, triggers, deletion,
 * reprocessing, two connections at once, 10k faces timed), and the real
 * UltraFace with the SFace stand-in on the ../shared group photos (skipped
 * when ../shared is absent).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../../src/platform/ids.js';
import { parseThresholds } from '../../../src/config.js';
import { clusterFacesJob } from '../../../src/features/faces/clusterFacesJob.js';
import { declaredThresholds } from '../../../src/features/faces/thresholds.js';
import { OnlineClusterer } from '../../../src/index/faces/clusterer.js';
import { faceClusterThreshold } from '../../../src/index/faces/thresholds.js';
import type { ClusterStore } from '../../../src/index/faces/types.js';
import { unit } from '../../../src/index/faces/vectorMath.js';
import { factsOf, loadCatalog } from '../../../src/models/catalog.js';
import type { ModelInfo } from '../../../src/models/types.js';
import { CLUSTER_BROWSE_CLAUSE, sqliteClusterStore } from '../../../src/storage/sqlite/clusterStore.js';
import { openSqliteStorage, type SqliteStorage } from '../../../src/storage/sqlite/index.js';
import type { NewObject } from '../../../src/storage/types.js';
import { loadFaceEmbedder, type FaceEmbedder } from '../../../src/models/vision/faceEmbedder.js';
import { sfaceStandinModelId, writeSfaceStandin } from '../../../src/models/standins/vision/sface.js';
import type { Detection } from '../../../src/models/vision/types.js';
import { loadUltraFaceDetector, toRawImage, type UltraFaceDetector } from '../../../src/models/vision/ultraface.js';
import { clusterVectors, randIndex } from '../../helpers/clustering.js';
import { sharedPath } from '../../helpers/skip.js';
import { seededRandom } from '../../../src/platform/random.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lumen-clusters-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
let fileNo = 0;
const tempDb = () => path.join(tmp, `c${++fileNo}.db`);
const ms = (t0: number) => performance.now() - t0;

// ---------------------------------------------------------------- synthetic vectors

function gauss(r: () => number): number {
  return Math.sqrt(-2 * Math.log(Math.max(r(), 1e-12))) * Math.cos(2 * Math.PI * r());
}
const D = 128;
function randomUnit(r: () => number, d = D): Float32Array {
  const v = new Float32Array(d);
  for (let i = 0; i < d; i++) v[i] = gauss(r);
  return unit(v);
}
/** A face of identity `u`: cosine ≈ `c` with u (so two faces of one identity ≈ c²; of two random identities ≈ 0 ± 0.09). */
function faceOf(u: Float32Array, c: number, r: () => number): Float32Array {
  const w = randomUnit(r, u.length);
  const s = Math.sqrt(1 - c * c);
  const v = new Float32Array(u.length);
  for (let i = 0; i < u.length; i++) v[i] = c * u[i] + s * w[i];
  return unit(v);
}
function shuffle<T>(a: T[], r: () => number): T[] {
  const out = [...a];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
const dotp = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

// ---------------------------------------------------------------- pure logic

const pure = suite('clusters: online algorithm');

pure('two tight groups make two clusters, whatever the order', () => {
  const r = seededRandom(1);
  const a = randomUnit(r);
  const b = randomUnit(r);
  const items = [
    ...Array.from({ length: 20 }, () => ({ id: 0, v: faceOf(a, 0.95, r) })),
    ...Array.from({ length: 20 }, () => ({ id: 1, v: faceOf(b, 0.95, r) })),
  ];
  for (let k = 0; k < 5; k++) {
    const order = shuffle(items, r);
    const labels = clusterVectors(
      order.map((x) => x.v),
      { threshold: 0.5 },
    );
    assert.is(new Set(labels).size, 2, 'two clusters');
    assert.is(
      randIndex(
        labels,
        order.map((x) => x.id),
      ),
      1,
      'the same partition as the truth',
    );
  }
});

pure('many identities: arrival order changes little; clusters ≈ identities', () => {
  const r = seededRandom(2);
  const ids = Array.from({ length: 40 }, () => randomUnit(r));
  // Faces of one identity: pairwise cosine ≈ 0.55, like a decent face model; of two identities ≈ 0 ± 0.09.
  const items = ids.flatMap((u, id) =>
    Array.from({ length: 3 + Math.floor(r() * 12) }, () => ({ id, v: faceOf(u, 0.74, r) })),
  );
  const runs: Array<{ order: typeof items; labels: number[] }> = [];
  for (let k = 0; k < 6; k++) {
    const order = shuffle(items, r);
    runs.push({
      order,
      labels: clusterVectors(
        order.map((x) => x.v),
        { threshold: 0.45 },
      ),
    });
  }
  // Compare every run with the truth, and with the first run (mapped back to the same item order).
  const byItem = runs.map(({ order, labels }) => {
    const m = new Map<Float32Array, number>();
    order.forEach((x, i) => m.set(x.v, labels[i]));
    return items.map((x) => m.get(x.v)!);
  });
  const truth = items.map((x) => x.id);
  const vsTruth = byItem.map((l) => randIndex(l, truth));
  const vsFirst = byItem.slice(1).map((l) => randIndex(l, byItem[0]));
  const counts = byItem.map((l) => new Set(l).size);
  console.log(
    `synthetic: ${items.length} faces of ${ids.length} identities → ${counts.join('/')} clusters over 6 orders; ` +
      `Rand vs truth min ${Math.min(...vsTruth).toFixed(4)}, between orders min ${Math.min(...vsFirst).toFixed(4)}`,
  );
  for (const x of vsTruth) assert.ok(x > 0.995, `Rand index vs truth ${x}`);
  for (const x of vsFirst) assert.ok(x > 0.995, `Rand index between orders ${x}`);
  for (const c of counts)
    assert.ok(c >= ids.length && c <= ids.length * 1.15, `clusters ${c} for ${ids.length} identities`);
});

pure('a cluster that drifts toward another merges with it; the bigger keeps its id', () => {
  // Two sides of one identity: u ± a. Faces of side A and side B are orthogonal (cosine ≈ 0): two clusters.
  const r = seededRandom(3);
  const u = randomUnit(r);
  let a = randomUnit(r);
  const ua = dotp(u, a);
  a = unit(a.map((x, i) => x - ua * u[i]));
  const side = (sign: number) => unit(u.map((x, i) => x + sign * a[i]));
  const c = new OnlineClusterer(D, { threshold: 0.5 });
  const A = side(+1);
  const B = side(-1);
  let n = 0;
  const first = c.add(`a${n++}`, faceOf(A, 0.995, r));
  for (let i = 0; i < 5; i++) assert.is(c.add(`a${n++}`, faceOf(A, 0.995, r)).clusterId, first.clusterId);
  const second = c.add(`b${n++}`, faceOf(B, 0.995, r));
  assert.ok(second.created, 'side B starts its own cluster');
  for (let i = 0; i < 2; i++) c.add(`b${n++}`, faceOf(B, 0.995, r));
  assert.is(c.count, 2);
  // Faces between the sides (near u: cosine 0.707 with each side) join one and pull it toward the other.
  const merges: Array<{ from: string; into: string }> = [];
  for (let i = 0; i < 30 && c.count === 2; i++) merges.push(...c.add(`u${n++}`, faceOf(u, 0.995, r)).merges);
  assert.is(c.count, 1, 'merged');
  assert.equal(merges, [{ from: second.clusterId, into: first.clusterId }], 'the smaller went into the bigger');
  const only = c.get(first.clusterId)!;
  assert.is(only.size, n);
  // After the merge no two centroids are within the threshold (trivially) and the centroid is ≈ u.
  assert.ok(dotp(c.centroid(first.clusterId)!, u) > 0.9, 'centroid near the identity');
});

pure('deleting faces moves the centroid back; an emptied cluster goes', () => {
  const r = seededRandom(4);
  const u = randomUnit(r);
  const c = new OnlineClusterer(D, { threshold: 0.5 });
  const faces = Array.from({ length: 4 }, () => faceOf(u, 0.97, r));
  const id = c.add('f0', faces[0]).clusterId;
  for (let i = 1; i < 4; i++) assert.is(c.add(`f${i}`, faces[i]).clusterId, id);
  const before = c.centroid(id)!;
  assert.ok(c.remove(id, faces[3]));
  assert.is(c.get(id)!.size, 3);
  const expected = unit(faces.slice(0, 3).reduce((s, f) => s.map((x, i) => x + f[i]), new Float32Array(D)));
  assert.ok(dotp(c.centroid(id)!, expected) > 0.99999, 'the centroid of the remaining three');
  assert.ok(dotp(before, expected) < 0.99999);
  c.drainChanges();
  for (let i = 0; i < 2; i++) c.remove(id, faces[i]);
  assert.ok(!c.remove(id, faces[2]), 'the last face empties it');
  assert.is(c.count, 0);
  assert.equal(c.drainChanges(), { changed: [], removed: [id] });
  // A face far from everything starts a new cluster; match() previews without changing anything.
  const other = randomUnit(r);
  assert.is(c.match(other), null);
  assert.ok(c.add('x', other).created);
  assert.ok(c.match(faceOf(other, 0.9, r)));
  assert.is(c.count, 1);
});

/** The thresholds the catalog's face models declare: the real SFace's, and the stand-in's (the test profile's). */
const catalog = loadCatalog({ modelsDir: tmp });
const sfaceEntry = catalog.models.get('sface')!;
const DECLARED = { sface: factsOf(catalog, sfaceEntry, false).clusterThreshold! };
const STANDIN_DECLARED = { sface: factsOf(catalog, sfaceEntry, true).clusterThreshold! };

pure('thresholds per model: each declares its own (the stand-in too), overrides by longest prefix', () => {
  assert.equal(DECLARED, { sface: 0.45 });
  assert.equal(STANDIN_DECLARED, { sface: 0.9 });
  const standin = sfaceStandinModelId();
  assert.match(standin, /^sface:[0-9a-f]{12}$/);
  assert.is(faceClusterThreshold(standin, {}, STANDIN_DECLARED), 0.9);
  assert.is(faceClusterThreshold('sface:0123456789ab', {}, DECLARED), 0.45);
  assert.is(faceClusterThreshold('arcface:0123456789ab', {}, DECLARED), 0.5);
  const table = parseThresholds('sface=0.4, sface:0123=0.6,0.3');
  assert.equal(table, { sface: 0.4, 'sface:0123': 0.6, '': 0.3 });
  assert.is(faceClusterThreshold('sface:0123456789ab', table, DECLARED), 0.6);
  assert.is(faceClusterThreshold('sface:ffff', table, DECLARED), 0.4);
  assert.is(faceClusterThreshold('arcface:1', table, DECLARED), 0.3);
  assert.is(faceClusterThreshold(standin, { sface: 0.4 }, STANDIN_DECLARED), 0.4, 'an override wins over the declared');
  assert.throws(() => parseThresholds('sface=abc'));
  assert.throws(() => parseThresholds('sface=1.5'));
  const infos = [
    { name: 'sface', clusterThreshold: 0.45 },
    { name: 'default', clusterThreshold: null },
  ] as ModelInfo[];
  assert.equal(declaredThresholds({ listModels: () => infos }), DECLARED, 'the models that declare one, by name');
});

pure.run();

// ---------------------------------------------------------------- storage

interface Lib {
  s: SqliteStorage;
  clusters: ClusterStore;
  userId: string;
  orgId: string;
  collId: string;
}

async function openLib(file = tempDb()): Promise<Lib> {
  const s = openSqliteStorage(file);
  const user = await s.accounts.createUser({
    id: newUuid(),
    email: `u-${newUuid()}@example.com`,
    name: 'U',
    createdAt: nowIso(),
  });
  const orgId = newUuid();
  await s.accounts.createOrganization({ id: orgId, name: 'Org', slug: `org-${orgId.slice(0, 8)}` }, user.id);
  const coll = await addCollection(s, orgId, user.id);
  return { s, clusters: sqliteClusterStore(s.db), userId: user.id, orgId, collId: coll };
}

async function addCollection(s: SqliteStorage, orgId: string, userId: string): Promise<string> {
  const at = nowIso();
  const c = await s.collections.create({
    id: newUuid(),
    organizationId: orgId,
    name: 'People',
    icon: null,
    type: 'media',
    createdAt: at,
    updatedAt: at,
    createdById: userId,
  });
  return c.id;
}

/** An image item with one frame; returns its media and frame ids. */
async function addImage(lib: Lib, collId = lib.collId): Promise<{ mediaId: string; frameId: string }> {
  const id = newMediaId();
  const frameId = newMediaId();
  await lib.s.media.insert(
    {
      id,
      collectionId: collId,
      organizationId: lib.orgId,
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
      createdById: lib.userId,
    },
    [{ id: frameId, timestamp: '0', blobKey: `frame-${id}`, width: 640, height: 480 }],
  );
  return { mediaId: id, frameId };
}

const MODEL = 'testface:000000000000';
const THRESHOLDS = { testface: 0.45 };

function faceObject(vector: Float32Array, modelId = MODEL): NewObject {
  const id = newMediaId();
  return {
    id,
    type: 'face',
    label: 'face',
    blobKey: `crop-${id}`,
    polygon: [
      { x: 0, y: 0 },
      { x: 10, y: 0 },
      { x: 10, y: 10 },
      { x: 0, y: 10 },
    ],
    confidence: 0.9,
    model: 'ultraface-rfb-320:test',
    similarityModel: 'faces',
    embedding: { modelId, vector },
  };
}

/** Writes faces on the item's frame (replacing what the model wrote there before); returns the object ids. */
async function writeFaces(
  lib: Lib,
  frameId: string,
  vectors: Float32Array[],
  extra: NewObject[] = [],
): Promise<string[]> {
  const objects = vectors.map((v) => faceObject(v));
  await lib.s.analysis.replaceFrameAnalysis(frameId, { captions: [], objects: [...objects, ...extra] });
  return objects.map((o) => o.id);
}

const browseCluster = (lib: Lib, clusterId: string, collId = lib.collId): string[] =>
  lib.s.db
    .prepare(
      `SELECT m.id FROM media m WHERE m.status = 'active' AND m.is_current = 1 AND m.dataset_id = ? AND ${CLUSTER_BROWSE_CLAUSE} ORDER BY m.id`,
    )
    .pluck()
    .all(collId, clusterId) as string[];

const memberCount = (lib: Lib) => lib.s.db.prepare(`SELECT count(*) FROM cluster_members`).pluck().get() as number;

const store = suite('clusters: sqlite store');

store('faces written by the analysis store are clustered; listing, preview, browse clause, idempotent', async () => {
  const lib = await openLib();
  try {
    const r = seededRandom(10);
    const alice = randomUnit(r);
    const bob = randomUnit(r);
    // Three photos: alice alone, alice with bob, bob alone (and an 'objects' vector that must be ignored).
    const p1 = await addImage(lib);
    const p2 = await addImage(lib);
    const p3 = await addImage(lib);
    const dog: NewObject = { ...faceObject(randomUnit(r)), type: 'object', label: 'dog', similarityModel: 'objects' };
    const [a1] = await writeFaces(lib, p1.frameId, [faceOf(alice, 0.9, r)], [dog]);
    const [a2, b1] = await writeFaces(lib, p2.frameId, [faceOf(alice, 0.9, r), faceOf(bob, 0.9, r)]);
    const [b2, b3] = await writeFaces(lib, p3.frameId, [faceOf(bob, 0.9, r), faceOf(bob, 0.9, r)]);
    assert.is(await lib.clusters.pendingCount(lib.collId), 5, 'faces only, queued by the trigger');
    assert.is(await lib.clusters.pendingCount(null), 5);

    const res = await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
    assert.equal({ ...res }, { assigned: 5, created: 2, merged: 0, skipped: 0, refreshed: 0, dropped: 0, more: false });
    assert.is(await lib.clusters.pendingCount(lib.collId), 0);

    const list = await lib.clusters.listClusters(lib.collId);
    assert.equal(
      list.map((c) => [c.size, c.mediaCount]),
      [
        [3, 2],
        [2, 2],
      ],
      'biggest first, with item counts',
    );
    const [bobC, aliceC] = list;
    assert.is(await lib.clusters.clusterOfObject(a1), aliceC.id);
    assert.is(await lib.clusters.clusterOfObject(a2), aliceC.id);
    for (const b of [b1, b2, b3]) assert.is(await lib.clusters.clusterOfObject(b), bobC.id);
    assert.match(aliceC.id, /^[0-9a-f]{32}$/);
    assert.ok([a1, a2].includes(aliceC.previewObjectId!), 'the preview is one of its faces');
    assert.is(aliceC.previewBlobKey, `crop-${aliceC.previewObjectId}`);
    assert.ok([p1.mediaId, p2.mediaId].includes(aliceC.previewMediaId!));
    assert.is(aliceC.modelId, MODEL);
    assert.equal(browseCluster(lib, aliceC.id), [p1.mediaId, p2.mediaId].sort());
    assert.equal(browseCluster(lib, bobC.id), [p2.mediaId, p3.mediaId].sort());
    assert.equal(await lib.clusters.mediaIdsInCluster(bobC.id), [p2.mediaId, p3.mediaId].sort());
    assert.is(await lib.clusters.countClusters(lib.collId), 2);
    assert.is(await lib.clusters.countClusters(lib.collId, { minSize: 3 }), 1);
    assert.equal(
      (await lib.clusters.listClusters(lib.collId, { limit: 1, offset: 1 })).map((c) => c.id),
      [aliceC.id],
    );
    assert.equal(
      (await lib.clusters.listClusters(lib.collId, { minSize: 3 })).map((c) => c.id),
      [bobC.id],
    );
    assert.equal((await lib.clusters.getCluster(aliceC.id))?.collectionId, lib.collId);
    assert.is(await lib.clusters.getCluster(newMediaId()), null);

    // The stored centroid is the unit mean of the members.
    const row = lib.s.db.prepare(`SELECT centroid, dims FROM clusters WHERE id = ?`).get(bobC.id) as {
      centroid: Buffer;
      dims: number;
    };
    assert.is(row.dims, 128);
    assert.is(row.centroid.byteLength, 512);

    // Idempotent: nothing left to do.
    const again = await lib.clusters.assignPending(null, 1000, { thresholds: THRESHOLDS });
    assert.is(again.assigned, 0);
    assert.is(memberCount(lib), 5);

    // Another collection's browse finds nothing for this cluster; its own faces cluster separately.
    const other = await addCollection(lib.s, lib.orgId, lib.userId);
    const q = await addImage(lib, other);
    await writeFaces(lib, q.frameId, [faceOf(alice, 0.9, r)]);
    await lib.clusters.assignPending(other, 1000, { thresholds: THRESHOLDS });
    assert.equal(browseCluster(lib, aliceC.id, other), []);
    assert.is((await lib.clusters.listClusters(other)).length, 1);
    assert.is((await lib.clusters.listClusters(lib.collId))[1].size, 2, 'alice of the first collection unchanged');
  } finally {
    await lib.s.close();
  }
});

store(
  'new faces join existing clusters incrementally; a cluster drifting into another merges and members follow',
  async () => {
    const lib = await openLib();
    try {
      const r = seededRandom(11);
      const carol = randomUnit(r);
      const p = await addImage(lib);
      await writeFaces(
        lib,
        p.frameId,
        Array.from({ length: 4 }, () => faceOf(carol, 0.9, r)),
      );
      await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
      const [c0] = await lib.clusters.listClusters(lib.collId);
      for (let k = 0; k < 3; k++) {
        const q = await addImage(lib);
        await writeFaces(lib, q.frameId, [faceOf(carol, 0.9, r)]);
        const res = await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
        assert.equal([res.assigned, res.created], [1, 0], 'joins, starts nothing');
      }
      const [c1] = await lib.clusters.listClusters(lib.collId);
      assert.equal([c1.id, c1.size, c1.mediaCount], [c0.id, 7, 4], 'same id, grown');

      // Two sides of one identity, then faces in between: two clusters become one, in storage too.
      const u = randomUnit(r);
      let a = randomUnit(r);
      const ua = dotp(u, a);
      a = unit(a.map((x, i) => x - ua * u[i]));
      const A = unit(u.map((x, i) => x + a[i]));
      const B = unit(u.map((x, i) => x - a[i]));
      const pa = await addImage(lib);
      await writeFaces(
        lib,
        pa.frameId,
        Array.from({ length: 5 }, () => faceOf(A, 0.995, r)),
      );
      const pb = await addImage(lib);
      await writeFaces(
        lib,
        pb.frameId,
        Array.from({ length: 3 }, () => faceOf(B, 0.995, r)),
      );
      await lib.clusters.assignPending(lib.collId, 1000, { thresholds: { testface: 0.5 } });
      assert.is(await lib.clusters.countClusters(lib.collId), 3);
      const pu = await addImage(lib);
      await writeFaces(
        lib,
        pu.frameId,
        Array.from({ length: 30 }, () => faceOf(u, 0.995, r)),
      );
      const res = await lib.clusters.assignPending(lib.collId, 1000, { thresholds: { testface: 0.5 }, batchSize: 7 });
      assert.ok(res.merged >= 1, `merged ${res.merged}`);
      const list = await lib.clusters.listClusters(lib.collId);
      assert.is(list.length, 2);
      assert.equal(
        list.map((c) => c.size),
        [38, 7],
      );
      assert.equal(browseCluster(lib, list[0].id), [pa.mediaId, pb.mediaId, pu.mediaId].sort());
      const sizes = lib.s.db
        .prepare(`SELECT cluster_id, count(*) AS n FROM cluster_members GROUP BY cluster_id ORDER BY n DESC`)
        .all();
      assert.equal(
        sizes,
        [
          { cluster_id: list[0].id, n: 38 },
          { cluster_id: c0.id, n: 7 },
        ],
        'member rows agree with sizes',
      );
    } finally {
      await lib.s.close();
    }
  },
);

store('deleted faces leave at once; clusters are recomputed or dropped; reprocessing re-clusters', async () => {
  const lib = await openLib();
  try {
    const r = seededRandom(12);
    const dave = randomUnit(r);
    const erin = randomUnit(r);
    const p1 = await addImage(lib);
    const p2 = await addImage(lib);
    const p3 = await addImage(lib);
    const d1 = await writeFaces(lib, p1.frameId, [faceOf(dave, 0.9, r), faceOf(dave, 0.9, r)]);
    const d2 = await writeFaces(lib, p2.frameId, [faceOf(dave, 0.9, r), faceOf(erin, 0.9, r)]);
    const e3 = await writeFaces(lib, p3.frameId, [faceOf(erin, 0.9, r)]);
    await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
    const daveId = (await lib.clusters.clusterOfObject(d1[0]))!;
    const erinId = (await lib.clusters.clusterOfObject(e3[0]))!;
    assert.is((await lib.clusters.getCluster(daveId))!.size, 3);

    // The user deletes one of dave's faces: out at once, the size follows.
    await lib.s.analysis.correctObject(d1[0], { deleted: true });
    assert.is(await lib.clusters.clusterOfObject(d1[0]), null);
    assert.is((await lib.clusters.getCluster(daveId))!.size, 2);
    assert.equal(browseCluster(lib, daveId), [p1.mediaId, p2.mediaId].sort(), 'p1 still has dave’s other face');
    const res = await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
    assert.equal([res.refreshed, res.dropped], [1, 0]);
    const row = lib.s.db.prepare(`SELECT dirty, preview_object_id FROM clusters WHERE id = ?`).get(daveId) as {
      dirty: number;
      preview_object_id: string;
    };
    assert.is(row.dirty, 0);
    assert.ok([d1[1], d2[0]].includes(row.preview_object_id));

    // Item p3 deleted: erin loses her face there.
    await lib.s.media.softDelete(p3.mediaId, lib.userId);
    assert.is((await lib.clusters.getCluster(erinId))!.size, 1);
    assert.is((await lib.clusters.getCluster(erinId))!.mediaCount, 1);
    // Reprocessing p2 replaces its faces (new object ids): erin's last face and one of dave's go; the new ones wait.
    const again = await writeFaces(lib, p2.frameId, [faceOf(dave, 0.9, r)]);
    assert.is(await lib.clusters.getCluster(erinId), null, 'an empty cluster is not listed even before the job runs');
    assert.equal(
      (await lib.clusters.listClusters(lib.collId)).map((c) => c.id),
      [daveId],
    );
    assert.is(await lib.clusters.pendingCount(lib.collId), 1);
    const res2 = await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
    assert.equal([res2.assigned, res2.created, res2.dropped], [1, 0, 1]);
    assert.is(lib.s.db.prepare(`SELECT count(*) FROM clusters WHERE id = ?`).pluck().get(erinId), 0, 'dropped');
    assert.is(await lib.clusters.clusterOfObject(again[0]), daveId, 'the reprocessed face finds dave again');
    assert.is((await lib.clusters.getCluster(daveId))!.size, 2);
    assert.is(memberCount(lib), 2);

    // A face deleted before it was clustered is simply skipped.
    const p4 = await addImage(lib);
    const [f4] = await writeFaces(lib, p4.frameId, [faceOf(dave, 0.9, r)]);
    await lib.s.analysis.correctObject(f4, { deleted: true });
    assert.is(await lib.clusters.pendingCount(lib.collId), 0, 'the trigger took it off the queue');
  } finally {
    await lib.s.close();
  }
});

store('two connections assigning at once: every face clustered exactly once', async () => {
  const file = tempDb();
  const lib = await openLib(file);
  const second = openSqliteStorage(file);
  try {
    const r = seededRandom(13);
    const people = Array.from({ length: 12 }, () => randomUnit(r));
    let faces = 0;
    for (let k = 0; k < 30; k++) {
      const p = await addImage(lib);
      const n = 1 + Math.floor(r() * 4);
      faces += n;
      await writeFaces(
        lib,
        p.frameId,
        Array.from({ length: n }, () => faceOf(people[Math.floor(r() * people.length)], 0.9, r)),
      );
    }
    const other = sqliteClusterStore(second.db);
    const [x, y] = await Promise.all([
      lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS, batchSize: 5 }),
      other.assignPending(null, 1000, { thresholds: THRESHOLDS, batchSize: 3 }),
    ]);
    assert.is(x.assigned + y.assigned, faces);
    assert.ok(x.assigned > 0 && y.assigned > 0, `both took part: ${x.assigned} + ${y.assigned}`);
    assert.is(memberCount(lib), faces);
    const total = lib.s.db.prepare(`SELECT sum(size) FROM clusters`).pluck().get() as number;
    assert.is(total, faces);
    const n = await lib.clusters.countClusters(lib.collId);
    assert.ok(n >= 10 && n <= 12, `${n} clusters for 12 people`);
  } finally {
    await second.close();
    await lib.s.close();
  }
});

store('the job body: assigns everything pending in rounds, reports progress, stops on abort', async () => {
  const lib = await openLib();
  try {
    const r = seededRandom(14);
    const u = randomUnit(r);
    for (let k = 0; k < 5; k++) {
      const p = await addImage(lib);
      await writeFaces(
        lib,
        p.frameId,
        Array.from({ length: 5 }, () => faceOf(u, 0.9, r)),
      );
    }
    const progress: unknown[] = [];
    const res = await clusterFacesJob(
      lib.clusters,
      { collectionId: lib.collId },
      { thresholds: THRESHOLDS, round: 10, progress: async (p) => void progress.push(p) },
    );
    assert.equal([res.assigned, res.created, res.more], [25, 1, false]);
    assert.is(progress.length, 2, 'after each full round');
    const p = await addImage(lib);
    await writeFaces(lib, p.frameId, [faceOf(u, 0.9, r)]);
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    try {
      await clusterFacesJob(lib.clusters, { collectionId: null }, { signal: ac.signal, thresholds: THRESHOLDS });
      assert.unreachable('aborted');
    } catch (err) {
      assert.match(String(err), /stop/);
    }
    assert.is(await lib.clusters.pendingCount(null), 1, 'left for the next run');
  } finally {
    await lib.s.close();
  }
});

store('10k faces: write, assign, list (timings)', async () => {
  const lib = await openLib();
  try {
    const r = seededRandom(15);
    const N = Number(process.env.CLUSTER_BENCH_FACES ?? 10_000);
    const identities = Math.round(N / 10);
    const people = Array.from({ length: identities }, () => randomUnit(r));
    const truth: number[] = [];
    const objectIds: string[] = [];
    const PER_ITEM = 20;
    let t = performance.now();
    lib.s.db.exec('BEGIN'); // one transaction for the set-up: per-item fsyncs would dominate the test's time
    for (let k = 0; k < N / PER_ITEM; k++) {
      const p = await addImage(lib);
      const who = Array.from({ length: PER_ITEM }, () => Math.floor(r() * identities));
      const ids = await writeFaces(
        lib,
        p.frameId,
        who.map((i) => faceOf(people[i], 0.74, r)),
      );
      truth.push(...who);
      objectIds.push(...ids);
    }
    lib.s.db.exec('COMMIT');
    const writeMs = ms(t);
    t = performance.now();
    const cpu0 = process.cpuUsage();
    const res = await lib.clusters.assignPending(lib.collId, N, { thresholds: THRESHOLDS });
    const assignMs = ms(t);
    const cpu = process.cpuUsage(cpu0);
    const assignCpuMs = (cpu.user + cpu.system) / 1000;
    t = performance.now();
    await lib.clusters.listClusters(lib.collId, { limit: 50 });
    const listMs = ms(t);
    // Quality against the identities (Rand index on a sample of faces: the full pair count is 50M).
    const label = new Map(
      (
        lib.s.db.prepare(`SELECT object_id, cluster_id FROM cluster_members`).all() as Array<{
          object_id: string;
          cluster_id: string;
        }>
      ).map((x) => [x.object_id, x.cluster_id]),
    );
    const sample = Array.from({ length: 1500 }, () => Math.floor(r() * N));
    const ids = new Map<string, number>();
    const got = sample.map((i) => {
      const c = label.get(objectIds[i])!;
      if (!ids.has(c)) ids.set(c, ids.size);
      return ids.get(c)!;
    });
    const rand = randIndex(
      got,
      sample.map((i) => truth[i]),
    );
    const present = new Set(truth).size;
    const q = await addImage(lib);
    await writeFaces(lib, q.frameId, [faceOf(people[0], 0.74, r)]);
    t = performance.now();
    await lib.clusters.assignPending(lib.collId, 10, { thresholds: THRESHOLDS });
    const oneMs = ms(t);
    console.log(
      `${N} faces (${present} identities, ${PER_ITEM} faces per item): write ${writeMs.toFixed(0)} ms; assignPending ${assignMs.toFixed(0)} ms wall, ` +
        `${assignCpuMs.toFixed(0)} ms CPU (${((assignCpuMs / N) * 1000).toFixed(0)} µs/face) → ${res.created - res.merged} clusters, ${res.merged} merges; ` +
        `Rand index vs identities ${rand.toFixed(4)}; listClusters(50) ${listMs.toFixed(1)} ms; one more face assigned in ${oneMs.toFixed(1)} ms`,
    );
    assert.is(res.assigned, N);
    assert.ok(rand > 0.99, `Rand index ${rand}`);
    const clusters = await lib.clusters.countClusters(lib.collId);
    assert.ok(
      clusters >= present * 0.97 && clusters <= present * 1.2,
      `${clusters} clusters for ${present} identities`,
    );
  } finally {
    await lib.s.close();
  }
});

store.run();

// ---------------------------------------------------------------- real detector + face embedding

const real = suite('clusters: real UltraFace + SFace stand-in on the fixture photos');

const modelPath = sharedPath('models/ultraface/version-RFB-320.onnx', 'face clusters on real photos');
const imagesDir = modelPath ? sharedPath('fixtures/images', 'face clusters on real photos') : null;
let ultra: UltraFaceDetector | null = null;
let embedder: FaceEmbedder | null = null;
real.after(async () => {
  await ultra?.close();
  await embedder?.close();
});

real('the same woman across copies and crops is one cluster; the school group stays apart', async () => {
  if (!modelPath || !imagesDir) return;
  ultra = await loadUltraFaceDetector({ modelPath });
  embedder = await loadFaceEmbedder({ modelPath: writeSfaceStandin(path.join(tmp, 'sface')) });
  assert.is(
    embedder.modelId,
    sfaceStandinModelId(),
    'the stand-in: sface and the hash of its bytes (its declared threshold applies)',
  );
  const photo = (name: string) => readFileSync(path.join(imagesDir, name));
  const lib = await openLib();
  try {
    /** Detects, embeds and stores the faces of one image as one item; returns the object ids with their detections. */
    const upload = async (bytes: Buffer, only?: 'best') => {
      const img = await toRawImage(bytes);
      let faces = await ultra!.detect(img);
      if (only) faces = faces.sort((a, b) => b.score - a.score).slice(0, 1);
      const vectors = await embedder!.embed(img, faces);
      const p = await addImage(lib);
      const objects: NewObject[] = faces.map((d, i) => ({
        ...faceObject(vectors[i], embedder!.modelId),
        polygon: d.polygon,
        confidence: d.score,
      }));
      await lib.s.analysis.replaceFrameAnalysis(p.frameId, { captions: [], objects });
      return { mediaId: p.mediaId, faces: faces.map((d, i) => ({ objectId: objects[i].id, det: d })) };
    };

    // ulf_5 (one woman): the file uploaded twice, a re-encoded 60% copy, two crops shifted, one rescaled.
    const w = photo('ulf_5.jpg');
    const meta = await sharp(w).metadata();
    const W = meta.width!;
    const H = meta.height!;
    const crop = (l: number, t: number, f: number) =>
      sharp(w)
        .extract({
          left: Math.round(l * W),
          top: Math.round(t * H),
          width: Math.round(f * W),
          height: Math.round(f * H),
        })
        .jpeg({ quality: 85 })
        .toBuffer();
    const variants: Array<[string, Buffer]> = [
      ['original', w],
      ['original again', w],
      [
        '60% re-encoded',
        await sharp(w)
          .resize(Math.round(W * 0.6))
          .jpeg({ quality: 70 })
          .toBuffer(),
      ],
      ['crop 90% top-left', await crop(0, 0, 0.9)],
      ['crop 90% shifted 5%', await crop(0.05, 0.04, 0.9)],
      [
        'crop 85% rescaled 120%',
        await sharp(await crop(0.08, 0.02, 0.85))
          .resize(Math.round(W * 0.85 * 1.2))
          .toBuffer(),
      ],
    ];
    const woman: string[] = [];
    for (const [name, bytes] of variants) {
      const u = await upload(bytes, 'best');
      assert.is(u.faces.length, 1, `${name}: a face found`);
      woman.push(u.faces[0].objectId);
    }

    // ulf_1 (school group, ~52 people), uploaded twice: each person's two faces should pair up.
    const g1 = await upload(photo('ulf_1.jpg'));
    const g2 = await upload(await sharp(photo('ulf_1.jpg')).jpeg({ quality: 80 }).toBuffer());

    const t = performance.now();
    await lib.clusters.assignPending(lib.collId, 10_000, { declaredThresholds: STANDIN_DECLARED });
    const assignMs = ms(t);
    const of = async (id: string) => (await lib.clusters.clusterOfObject(id))!;

    const womanClusters = new Set(await Promise.all(woman.map(of)));
    const groupClusters1 = await Promise.all(g1.faces.map((f) => of(f.objectId)));
    const distinct1 = new Set(groupClusters1).size;
    // Pair each face of the first group upload with the second's face at the same place.
    const iou = (a: Detection['box'], b: Detection['box']) => {
      const x = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
      const y = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
      return (x * y) / (a.width * a.height + b.width * b.height - x * y);
    };
    let pairs = 0;
    let together = 0;
    for (const f of g1.faces) {
      const match = g2.faces.find((h) => iou(f.det.box, h.det.box) > 0.7);
      if (!match) continue;
      pairs++;
      if ((await of(f.objectId)) === (await of(match.objectId))) together++;
    }
    const groupSet = new Set([...groupClusters1, ...(await Promise.all(g2.faces.map((f) => of(f.objectId))))]);
    const womanInGroup = [...womanClusters].some((c) => groupSet.has(c));
    const total = await lib.clusters.countClusters(lib.collId);
    const big = (await lib.clusters.listClusters(lib.collId, { limit: 3 })).map((c) => c.size);
    console.log(
      `real photos (UltraFace + SFace stand-in, threshold ${faceClusterThreshold(embedder.modelId)}): ` +
        `ulf_5 in ${variants.length} versions → ${womanClusters.size} cluster(s); ` +
        `ulf_1: ${g1.faces.length} faces → ${distinct1} distinct clusters; uploaded twice: ${together}/${pairs} same-place pairs together; ` +
        `${woman.length + g1.faces.length + g2.faces.length} faces → ${total} clusters (largest ${big.join(', ')}); assign ${assignMs.toFixed(0)} ms`,
    );
    assert.is(womanClusters.size, 1, 'every version of the woman in one cluster');
    assert.ok(!womanInGroup, 'no face of the group in her cluster');
    assert.ok(g1.faces.length >= 45, `faces found in ulf_1: ${g1.faces.length}`);
    assert.ok(
      distinct1 >= 0.9 * g1.faces.length,
      `different people apart: ${distinct1} clusters for ${g1.faces.length} faces`,
    );
    assert.ok(together >= 0.9 * pairs && pairs >= 0.9 * g1.faces.length, `pairs together ${together}/${pairs}`);
    const [womanCluster] = [...womanClusters];
    assert.is(
      (await lib.clusters.getCluster(womanCluster))!.mediaCount,
      variants.length,
      'browse by her cluster lists every version',
    );
  } finally {
    await lib.s.close();
  }
});

real.run();
