/**
 * People: a person's edits of face clusters (name, hide, cover, merge, move faces), the name found through the
 * text index, and every edit surviving the background clusterer. Engine-neutral: run on SQLite by
 * ./people.test.ts and on PostgreSQL (PGlite) by test/storage/postgresPeople.test.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { unit } from '../../../src/index/faces/vectorMath.js';
import { seededRandom } from '../../../src/platform/random.js';
import { dotp, faceOf, randomUnit } from '../../helpers/faceVectors.js';
import { THRESHOLDS, writeFaces, type ClusterLib } from './clusterStoreSuite.js';

export interface PeopleLib extends ClusterLib {
  /** Items of the collection whose text (a person's name included) matches `q`, by id. */
  textSearch(q: string): Promise<string[]>;
  /** Makes a deleted face active again (its item restored), as the stores do. */
  reactivateObject(objectId: string): Promise<void>;
}

const assign = (lib: PeopleLib, thresholds: Record<string, number> = THRESHOLDS) =>
  lib.clusters.assignPending(lib.collId, 10_000, { thresholds });

/** Photos of two people: alice on 3 items (4 faces), bob on 2 (2 faces); their clusters and item ids. */
async function twoPeople(lib: PeopleLib, seed: number) {
  const r = seededRandom(seed);
  const alice = randomUnit(r);
  const bob = randomUnit(r);
  const items = [await lib.addImage(), await lib.addImage(), await lib.addImage(), await lib.addImage()];
  const aliceFaces = [
    ...(await writeFaces(lib, items[0].frameId, [faceOf(alice, 0.9, r), faceOf(alice, 0.9, r)])),
    ...(await writeFaces(lib, items[1].frameId, [faceOf(alice, 0.9, r), faceOf(bob, 0.9, r)])),
    ...(await writeFaces(lib, items[2].frameId, [faceOf(alice, 0.9, r)])),
  ];
  const bobFace = aliceFaces.splice(3, 1)[0];
  const [bob2] = await writeFaces(lib, items[3].frameId, [faceOf(bob, 0.9, r)]);
  await assign(lib);
  const aliceId = (await lib.clusters.clusterOfObject(aliceFaces[0]))!;
  const bobId = (await lib.clusters.clusterOfObject(bobFace))!;
  return { r, alice, bob, items, aliceFaces, bobFaces: [bobFace, bob2], aliceId, bobId };
}

export function peopleSuite(name: string, open: () => Promise<PeopleLib>): void {
  const test = suite(`people: ${name} store`);

  test('rename: listed first, found by name in the text index, following faces; hide; cover', async () => {
    const lib = await open();
    try {
      const p = await twoPeople(lib, 40);
      const mediaOf = (ids: number[]) => ids.map((i) => p.items[i].mediaId).sort();
      assert.equal(await lib.textSearch('alice'), []);
      assert.ok(await lib.clusters.updateCluster(p.bobId, { name: 'Bob Stone' }));
      let list = await lib.clusters.listClusters(lib.collId);
      assert.equal(
        list.map((c) => [c.id, c.name, c.size]),
        [
          [p.bobId, 'Bob Stone', 2],
          [p.aliceId, null, 4],
        ],
        'named first, though smaller',
      );
      assert.ok(list[0].pinned);
      assert.equal(await lib.textSearch('stone'), mediaOf([1, 3]));
      assert.equal(await lib.textSearch('Bob Stone'), mediaOf([1, 3]));
      await lib.clusters.updateCluster(p.aliceId, { name: 'Alice' });
      assert.equal(await lib.textSearch('Alice'), mediaOf([0, 1, 2]));
      await lib.clusters.updateCluster(p.bobId, { name: 'Robert' });
      assert.equal(await lib.textSearch('stone'), [], 'the old name is gone');
      assert.equal(await lib.textSearch('robert'), mediaOf([1, 3]));

      // A new face of Alice joins her cluster: its item is found by her name; her faces deleted: it is not.
      const extra = await lib.addImage();
      const [f] = await writeFaces(lib, extra.frameId, [faceOf(p.alice, 0.9, p.r)]);
      await assign(lib);
      assert.is(await lib.clusters.clusterOfObject(f), p.aliceId);
      assert.ok((await lib.textSearch('alice')).includes(extra.mediaId));
      await lib.analysis.correctObject(f, { deleted: true });
      assert.not.ok((await lib.textSearch('alice')).includes(extra.mediaId));
      await lib.deleteItem(p.items[2].mediaId);
      assert.equal(await lib.textSearch('alice'), mediaOf([0, 1]), 'a deleted item is not found');

      // Cleared name: not found; unnamed last again.
      await lib.clusters.updateCluster(p.bobId, { name: null });
      assert.equal(await lib.textSearch('robert'), []);

      // Hidden: out of the list and count unless asked.
      await lib.clusters.updateCluster(p.bobId, { hidden: true });
      list = await lib.clusters.listClusters(lib.collId);
      assert.equal(
        list.map((c) => c.id),
        [p.aliceId],
      );
      assert.is(await lib.clusters.countClusters(lib.collId), 1);
      assert.is(await lib.clusters.countClusters(lib.collId, { includeHidden: true }), 2);
      const all = await lib.clusters.listClusters(lib.collId, { includeHidden: true });
      assert.equal(
        all.map((c) => [c.id, c.hidden]),
        [
          [p.aliceId, false],
          [p.bobId, true],
        ],
      );
      await lib.clusters.updateCluster(p.bobId, { hidden: false });
      assert.is(await lib.clusters.countClusters(lib.collId), 2);

      // Cover: shown while a member.
      const cover = p.aliceFaces[1];
      await lib.clusters.updateCluster(p.aliceId, { coverObjectId: cover });
      const a = (await lib.clusters.getCluster(p.aliceId))!;
      assert.equal([a.coverObjectId, a.previewObjectId, a.previewBlobKey], [cover, cover, `crop-${cover}`]);
      await lib.clusters.moveFaces(p.aliceId, [cover], p.bobId);
      const a2 = (await lib.clusters.getCluster(p.aliceId))!;
      assert.is(a2.coverObjectId, null, 'a cover moved away is no longer shown');
      assert.ok(a2.previewObjectId !== null && a2.previewObjectId !== cover);
      assert.not.ok(await lib.clusters.updateCluster('0'.repeat(32), { name: 'x' }), 'no such cluster');
    } finally {
      await lib.close();
    }
  });

  test('merge many into one: faces, sizes, items and the name follow; the others are gone', async () => {
    const lib = await open();
    try {
      const r = seededRandom(41);
      const people = [randomUnit(r), randomUnit(r), randomUnit(r)];
      const items = [];
      for (const person of people) {
        const item = await lib.addImage();
        await writeFaces(lib, item.frameId, [faceOf(person, 0.9, r), faceOf(person, 0.9, r)]);
        items.push(item.mediaId);
      }
      await assign(lib);
      const ids = (await lib.clusters.listClusters(lib.collId)).map((c) => c.id);
      assert.is(ids.length, 3);
      await lib.clusters.updateCluster(ids[2], { name: 'Carol' });
      const merged = await lib.clusters.mergeClusters(ids[0], [ids[1], ids[2]]);
      assert.equal([merged.id, merged.size, merged.mediaCount, merged.name], [ids[0], 6, 3, 'Carol']);
      assert.ok(merged.pinned);
      assert.is(await lib.clusters.getCluster(ids[1]), null);
      assert.is(await lib.clusters.getCluster(ids[2]), null);
      assert.equal(await lib.browseCluster(ids[0]), [...items].sort());
      assert.equal(await lib.memberSizes(), [{ cluster_id: ids[0], n: 6 }]);
      assert.equal(await lib.textSearch('carol'), [...items].sort(), 'every merged item found by the name');
      const faces = await lib.clusters.clusterFaces(ids[0], { limit: 10, offset: 0 });
      assert.is(faces.length, 6);
      assert.ok(faces.every((f) => f.blobKey === `crop-${f.objectId}`));
    } finally {
      await lib.close();
    }
  });

  test('move faces into another person or a new one; the source goes when empty', async () => {
    const lib = await open();
    try {
      const p = await twoPeople(lib, 42);
      const [w1, w2] = p.aliceFaces.slice(2);
      const toBob = await lib.clusters.moveFaces(p.aliceId, [w1], p.bobId);
      assert.equal(toBob, { clusterId: p.bobId, moved: 1 });
      assert.is(await lib.clusters.clusterOfObject(w1), p.bobId);
      assert.is((await lib.clusters.getCluster(p.bobId))!.size, 3);
      assert.is((await lib.clusters.getCluster(p.aliceId))!.size, 3);
      const faces = await lib.clusters.clusterFaces(p.bobId, { limit: 10, offset: 0 });
      assert.equal(faces.find((f) => f.objectId === w1)?.manual, true);
      assert.equal(faces.filter((f) => f.manual).length, 1);

      const fresh = await lib.clusters.moveFaces(p.aliceId, [w2, p.bobFaces[0]], null);
      assert.is(fresh.moved, 1, 'a face of another cluster is left alone');
      assert.match(fresh.clusterId, /^[0-9a-f]{32}$/);
      const c = (await lib.clusters.getCluster(fresh.clusterId))!;
      assert.equal([c.size, c.pinned, c.previewObjectId], [1, true, w2]);
      assert.is(await lib.clusters.clusterOfObject(p.bobFaces[0]), p.bobId);

      const rest = p.aliceFaces.filter((f) => f !== w1 && f !== w2);
      const last = await lib.clusters.moveFaces(p.aliceId, rest, fresh.clusterId);
      assert.is(last.moved, 2);
      assert.is(await lib.clusters.getCluster(p.aliceId), null, 'emptied: gone');
      assert.is((await lib.clusters.getCluster(fresh.clusterId))!.size, 3);
    } finally {
      await lib.close();
    }
  });

  test('re-clustering never undoes a person: pinned clusters stay apart, a named one keeps its id and name', async () => {
    const lib = await open();
    try {
      const r = seededRandom(43);
      // Two sides of one identity, then faces in between: left alone, the clusterer merges them (see the cluster
      // store suite). Named (pinned), they stay two.
      const u = randomUnit(r);
      let a = randomUnit(r);
      const ua = dotp(u, a);
      a = unit(a.map((x, i) => x - ua * u[i]));
      const A = unit(u.map((x, i) => x + a[i]));
      const B = unit(u.map((x, i) => x - a[i]));
      const t = { testface: 0.5 };
      const pa = await lib.addImage();
      const [fa] = await writeFaces(
        lib,
        pa.frameId,
        Array.from({ length: 5 }, () => faceOf(A, 0.995, r)),
      );
      const pb = await lib.addImage();
      const [fb] = await writeFaces(
        lib,
        pb.frameId,
        Array.from({ length: 3 }, () => faceOf(B, 0.995, r)),
      );
      await assign(lib, t);
      const ca = (await lib.clusters.clusterOfObject(fa))!;
      const cb = (await lib.clusters.clusterOfObject(fb))!;
      await lib.clusters.updateCluster(ca, { name: 'Ann' });
      await lib.clusters.updateCluster(cb, { name: 'Ben' });
      const pu = await lib.addImage();
      await writeFaces(
        lib,
        pu.frameId,
        Array.from({ length: 30 }, () => faceOf(u, 0.995, r)),
      );
      const res = await lib.clusters.assignPending(lib.collId, 1000, { thresholds: t, batchSize: 7 });
      assert.is(res.merged, 0);
      const list = await lib.clusters.listClusters(lib.collId);
      assert.equal(list.map((c) => c.name).sort(), ['Ann', 'Ben']);
      assert.is(
        list.reduce((n, c) => n + c.size, 0),
        38,
      );

      // Only Ben named (the smaller side): the clusters merge, into Ben, who keeps his id and name.
      await lib.clusters.updateCluster(ca, { name: null });
      const lib2 = await open();
      try {
        const qa = await lib2.addImage();
        const [ga] = await writeFaces(
          lib2,
          qa.frameId,
          Array.from({ length: 5 }, () => faceOf(A, 0.995, r)),
        );
        const qb = await lib2.addImage();
        const [gb] = await writeFaces(
          lib2,
          qb.frameId,
          Array.from({ length: 3 }, () => faceOf(B, 0.995, r)),
        );
        await assign(lib2, t);
        const ben = (await lib2.clusters.clusterOfObject(gb))!;
        assert.ok((await lib2.clusters.clusterOfObject(ga)) !== ben);
        await lib2.clusters.updateCluster(ben, { name: 'Ben' });
        const qu = await lib2.addImage();
        await writeFaces(
          lib2,
          qu.frameId,
          Array.from({ length: 30 }, () => faceOf(u, 0.995, r)),
        );
        const res2 = await lib2.clusters.assignPending(lib2.collId, 1000, { thresholds: t, batchSize: 7 });
        assert.ok(res2.merged >= 1);
        const after = await lib2.clusters.listClusters(lib2.collId);
        assert.equal(
          after.map((c) => [c.id, c.name, c.size]),
          [[ben, 'Ben', 38]],
        );
        assert.equal(await lib2.textSearch('ben'), [qa.mediaId, qb.mediaId, qu.mediaId].sort());
      } finally {
        await lib2.close();
      }
    } finally {
      await lib.close();
    }
  });

  test('a face moved out does not drift back: "not this person" stays apart, and a restored face goes back', async () => {
    const lib = await open();
    try {
      const p = await twoPeople(lib, 44);
      const [m1, m2] = p.aliceFaces.slice(0, 2);
      const { clusterId: other } = await lib.clusters.moveFaces(p.aliceId, [m1, m2], null);
      // More faces of Alice: they join a cluster, but the two never merge again.
      for (let k = 0; k < 3; k++) {
        const item = await lib.addImage();
        await writeFaces(lib, item.frameId, [faceOf(p.alice, 0.95, p.r), faceOf(p.alice, 0.95, p.r)]);
        const res = await assign(lib);
        assert.is(res.merged, 0);
      }
      assert.is(await lib.clusters.clusterOfObject(m1), other);
      assert.ok(await lib.clusters.getCluster(p.aliceId));
      // The face deleted and restored (its item put back): it goes back where the person put it.
      await lib.analysis.correctObject(m1, { deleted: true });
      assert.is(await lib.clusters.clusterOfObject(m1), null);
      await lib.reactivateObject(m1);
      await assign(lib);
      assert.is(await lib.clusters.clusterOfObject(m1), other);
      // Merged by a person: stays merged as faces arrive.
      await lib.clusters.mergeClusters(p.aliceId, [other]);
      const item = await lib.addImage();
      await writeFaces(lib, item.frameId, [faceOf(p.alice, 0.95, p.r)]);
      await assign(lib);
      assert.is(await lib.clusters.clusterOfObject(m1), p.aliceId);
      assert.is(await lib.clusters.getCluster(other), null);
    } finally {
      await lib.close();
    }
  });

  test.run();
}
