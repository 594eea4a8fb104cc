/**
 * Face clustering: the online algorithm on synthetic unit vectors, the SQLite
 * store (the engine-neutral suite of ./clusterStoreSuite.ts: faces written
 * through the analysis store, triggers, deletion, reprocessing; then what is
 * SQLite's own: two connections at once on one file, 10k faces timed), and the
 * real UltraFace with the SFace stand-in on the ../shared group photos (skipped
 * when ../shared is absent). PostgreSQL runs the same suite in
 * test/storage/postgresClusters.test.ts and postgresClusterRace.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseThresholds } from '../../../src/config.js';
import { declaredThresholds } from '../../../src/features/faces/thresholds.js';
import { OnlineClusterer } from '../../../src/index/faces/clusterer.js';
import { faceClusterThreshold } from '../../../src/index/faces/thresholds.js';
import { unit } from '../../../src/index/faces/vectorMath.js';
import { factsOf, loadCatalog } from '../../../src/models/catalog.js';
import type { ModelInfo } from '../../../src/models/types.js';
import { sqliteClusterStore } from '../../../src/storage/sqlite/clusterStore.js';
import { openSqliteStorage } from '../../../src/storage/sqlite/index.js';
import type { NewObject } from '../../../src/storage/types.js';
import { loadFaceEmbedder, type FaceEmbedder } from '../../../src/models/vision/faceEmbedder.js';
import { sfaceStandinModelId, writeSfaceStandin } from '../../../src/models/standins/vision/sface.js';
import type { Detection } from '../../../src/models/vision/types.js';
import { loadUltraFaceDetector, toRawImage, type UltraFaceDetector } from '../../../src/models/vision/ultraface.js';
import { clusterVectors, randIndex } from '../../helpers/clustering.js';
import { D, dotp, faceOf, randomUnit, shuffle } from '../../helpers/faceVectors.js';
import { clusterStoreSuite, faceObject, THRESHOLDS, writeFaces } from './clusterStoreSuite.js';
import { addImage, memberCount, openSqliteClusterLib } from './sqliteClusterLib.js';
import { sharedPath } from '../../helpers/skip.js';
import { seededRandom } from '../../../src/platform/random.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lumen-clusters-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
let fileNo = 0;
const tempDb = () => path.join(tmp, `c${++fileNo}.db`);
const ms = (t0: number) => performance.now() - t0;

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

const openLib = (file = tempDb()) => openSqliteClusterLib(file);

clusterStoreSuite('sqlite', () => openLib());

const store = suite('clusters: sqlite store, SQLite only');

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
