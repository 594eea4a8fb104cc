/**
 * The face cluster store's contract, engine-neutral: faces written through the analysis store are queued
 * by the engine's triggers, clustered, listed, browsed, left at once when deleted, re-clustered when
 * reprocessed; the job body over it. Run on SQLite by ./clusters.test.ts and on PostgreSQL (PGlite) by
 * test/storage/postgresClusters.test.ts. Each test opens a fresh library with one collection; the few
 * facts no interface exposes (member rows, a cluster's stored centroid) come through ClusterLib.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId } from '../../../src/platform/ids.js';
import { clusterFacesJob } from '../../../src/features/faces/clusterFacesJob.js';
import type { ClusterStore } from '../../../src/index/faces/types.js';
import { unit } from '../../../src/index/faces/vectorMath.js';
import { seededRandom } from '../../../src/platform/random.js';
import type { AnalysisStore } from '../../../src/storage/storage.js';
import type { NewObject } from '../../../src/storage/types.js';
import { dotp, faceOf, randomUnit } from '../../helpers/faceVectors.js';

/** A library for one test, on some engine. */
export interface ClusterLib {
  clusters: ClusterStore;
  analysis: Pick<AnalysisStore, 'replaceFrameAnalysis' | 'correctObject'>;
  collId: string;
  /** Another collection of the same organization. */
  addCollection(): Promise<string>;
  /** An image item with one frame (in the library's collection unless named); its media and frame ids. */
  addImage(collId?: string): Promise<{ mediaId: string; frameId: string }>;
  /** Soft-deletes an item as the media store does (its frames and objects with it). */
  deleteItem(mediaId: string): Promise<void>;
  /** Moves an item to the trash and purges it from there, as the media store does (trash, then purgeTrash). */
  purgeItem(mediaId: string): Promise<void>;
  /** The live, current items of the collection that browse by this cluster finds, by id. */
  browseCluster(clusterId: string, collId?: string): Promise<string[]>;
  /** Rows of cluster_members. */
  memberCount(): Promise<number>;
  /** Member rows per cluster, most first. */
  memberSizes(): Promise<Array<{ cluster_id: string; n: number }>>;
  /** The stored row of a cluster, or null when there is none. */
  clusterRow(
    id: string,
  ): Promise<{ dims: number; centroidBytes: number; dirty: boolean; previewObjectId: string | null } | null>;
  close(): Promise<void>;
}

export const MODEL = 'testface:000000000000';
export const THRESHOLDS = { testface: 0.45 };

export function faceObject(vector: Float32Array, modelId = MODEL): NewObject {
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
export async function writeFaces(
  lib: Pick<ClusterLib, 'analysis'>,
  frameId: string,
  vectors: Float32Array[],
  extra: NewObject[] = [],
): Promise<string[]> {
  const objects = vectors.map((v) => faceObject(v));
  await lib.analysis.replaceFrameAnalysis(frameId, { captions: [], objects: [...objects, ...extra] });
  return objects.map((o) => o.id);
}

export function clusterStoreSuite(name: string, open: () => Promise<ClusterLib>): void {
  const test = suite(`clusters: ${name} store`);

  test('faces written by the analysis store are clustered; listing, preview, browse clause, idempotent', async () => {
    const lib = await open();
    try {
      const r = seededRandom(10);
      const alice = randomUnit(r);
      const bob = randomUnit(r);
      // Three photos: alice alone, alice with bob, bob alone (and an 'objects' vector that must be ignored).
      const p1 = await lib.addImage();
      const p2 = await lib.addImage();
      const p3 = await lib.addImage();
      const dog: NewObject = { ...faceObject(randomUnit(r)), type: 'object', label: 'dog', similarityModel: 'objects' };
      const [a1] = await writeFaces(lib, p1.frameId, [faceOf(alice, 0.9, r)], [dog]);
      const [a2, b1] = await writeFaces(lib, p2.frameId, [faceOf(alice, 0.9, r), faceOf(bob, 0.9, r)]);
      const [b2, b3] = await writeFaces(lib, p3.frameId, [faceOf(bob, 0.9, r), faceOf(bob, 0.9, r)]);
      assert.is(await lib.clusters.pendingCount(lib.collId), 5, 'faces only, queued by the trigger');
      assert.is(await lib.clusters.pendingCount(null), 5);

      const res = await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
      assert.equal(
        { ...res },
        { assigned: 5, created: 2, merged: 0, skipped: 0, refreshed: 0, dropped: 0, more: false },
      );
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
      assert.equal(await lib.browseCluster(aliceC.id), [p1.mediaId, p2.mediaId].sort());
      assert.equal(await lib.browseCluster(bobC.id), [p2.mediaId, p3.mediaId].sort());
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
      const row = (await lib.clusterRow(bobC.id))!;
      assert.is(row.dims, 128);
      assert.is(row.centroidBytes, 512);

      // Idempotent: nothing left to do.
      const again = await lib.clusters.assignPending(null, 1000, { thresholds: THRESHOLDS });
      assert.is(again.assigned, 0);
      assert.is(await lib.memberCount(), 5);

      // Another collection's browse finds nothing for this cluster; its own faces cluster separately.
      const other = await lib.addCollection();
      const q = await lib.addImage(other);
      await writeFaces(lib, q.frameId, [faceOf(alice, 0.9, r)]);
      await lib.clusters.assignPending(other, 1000, { thresholds: THRESHOLDS });
      assert.equal(await lib.browseCluster(aliceC.id, other), []);
      assert.is((await lib.clusters.listClusters(other)).length, 1);
      assert.is((await lib.clusters.listClusters(lib.collId))[1].size, 2, 'alice of the first collection unchanged');
    } finally {
      await lib.close();
    }
  });

  test('new faces join existing clusters incrementally; a cluster drifting into another merges and members follow', async () => {
    const lib = await open();
    try {
      const r = seededRandom(11);
      const carol = randomUnit(r);
      const p = await lib.addImage();
      await writeFaces(
        lib,
        p.frameId,
        Array.from({ length: 4 }, () => faceOf(carol, 0.9, r)),
      );
      await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
      const [c0] = await lib.clusters.listClusters(lib.collId);
      for (let k = 0; k < 3; k++) {
        const q = await lib.addImage();
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
      const pa = await lib.addImage();
      await writeFaces(
        lib,
        pa.frameId,
        Array.from({ length: 5 }, () => faceOf(A, 0.995, r)),
      );
      const pb = await lib.addImage();
      await writeFaces(
        lib,
        pb.frameId,
        Array.from({ length: 3 }, () => faceOf(B, 0.995, r)),
      );
      await lib.clusters.assignPending(lib.collId, 1000, { thresholds: { testface: 0.5 } });
      assert.is(await lib.clusters.countClusters(lib.collId), 3);
      const pu = await lib.addImage();
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
      assert.equal(await lib.browseCluster(list[0].id), [pa.mediaId, pb.mediaId, pu.mediaId].sort());
      const sizes = await lib.memberSizes();
      assert.equal(
        sizes,
        [
          { cluster_id: list[0].id, n: 38 },
          { cluster_id: c0.id, n: 7 },
        ],
        'member rows agree with sizes',
      );
    } finally {
      await lib.close();
    }
  });

  test('deleted faces leave at once; clusters are recomputed or dropped; reprocessing re-clusters', async () => {
    const lib = await open();
    try {
      const r = seededRandom(12);
      const dave = randomUnit(r);
      const erin = randomUnit(r);
      const p1 = await lib.addImage();
      const p2 = await lib.addImage();
      const p3 = await lib.addImage();
      const d1 = await writeFaces(lib, p1.frameId, [faceOf(dave, 0.9, r), faceOf(dave, 0.9, r)]);
      const d2 = await writeFaces(lib, p2.frameId, [faceOf(dave, 0.9, r), faceOf(erin, 0.9, r)]);
      const e3 = await writeFaces(lib, p3.frameId, [faceOf(erin, 0.9, r)]);
      await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
      const daveId = (await lib.clusters.clusterOfObject(d1[0]))!;
      const erinId = (await lib.clusters.clusterOfObject(e3[0]))!;
      assert.is((await lib.clusters.getCluster(daveId))!.size, 3);

      // The user deletes one of dave's faces: out at once, the size follows.
      await lib.analysis.correctObject(d1[0], { deleted: true });
      assert.is(await lib.clusters.clusterOfObject(d1[0]), null);
      assert.is((await lib.clusters.getCluster(daveId))!.size, 2);
      assert.equal(await lib.browseCluster(daveId), [p1.mediaId, p2.mediaId].sort(), 'p1 still has dave’s other face');
      const res = await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
      assert.equal([res.refreshed, res.dropped], [1, 0]);
      const row = (await lib.clusterRow(daveId))!;
      assert.is(row.dirty, false);
      assert.ok([d1[1], d2[0]].includes(row.previewObjectId!));

      // Item p3 deleted: erin loses her face there.
      await lib.deleteItem(p3.mediaId);
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
      assert.is(await lib.clusterRow(erinId), null, 'dropped');
      assert.is(await lib.clusters.clusterOfObject(again[0]), daveId, 'the reprocessed face finds dave again');
      assert.is((await lib.clusters.getCluster(daveId))!.size, 2);
      assert.is(await lib.memberCount(), 2);

      // A face deleted before it was clustered is simply skipped.
      const p4 = await lib.addImage();
      const [f4] = await writeFaces(lib, p4.frameId, [faceOf(dave, 0.9, r)]);
      await lib.analysis.correctObject(f4, { deleted: true });
      assert.is(await lib.clusters.pendingCount(lib.collId), 0, 'the trigger took it off the queue');
    } finally {
      await lib.close();
    }
  });

  test('an item trashed and purged leaves its clusters: sizes, members and item counts follow', async () => {
    const lib = await open();
    try {
      const r = seededRandom(21);
      const gus = randomUnit(r);
      const items = [await lib.addImage(), await lib.addImage(), await lib.addImage()];
      const faces = [];
      for (const p of items) faces.push(...(await writeFaces(lib, p.frameId, [faceOf(gus, 0.9, r)])));
      await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
      const gusId = (await lib.clusters.clusterOfObject(faces[0]))!;
      assert.is((await lib.clusters.getCluster(gusId))!.size, 3);
      await lib.purgeItem(items[2].mediaId);
      const after = (await lib.clusters.getCluster(gusId))!;
      assert.equal([after.size, after.mediaCount], [2, 2]);
      assert.is(await lib.memberCount(), 2);
      await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
      assert.is((await lib.clusters.getCluster(gusId))!.size, 2, 'the clusterer agrees after its refresh');
      assert.equal(await lib.browseCluster(gusId), [items[0].mediaId, items[1].mediaId].sort());
    } finally {
      await lib.close();
    }
  });

  test('the job body: assigns everything pending in rounds, reports progress, stops on abort', async () => {
    const lib = await open();
    try {
      const r = seededRandom(14);
      const u = randomUnit(r);
      for (let k = 0; k < 5; k++) {
        const p = await lib.addImage();
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
      const p = await lib.addImage();
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
      await lib.close();
    }
  });

  test.run();
}
