/**
 * Part of the storage contract (run by ./sqlite.test.ts and ./postgres.test.ts beside ./suite.ts): the
 * duplicate review's store (storage.duplicates). Talks to the store only through the Storage interface.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId, newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import type { MediaType, NewMedia } from '../../src/storage/types.js';

export function duplicatesSuite(name: string, open: () => Promise<Storage>): void {
  const test = suite(`storage (duplicates): ${name}`);
  let s: Storage;
  let userId: string;
  let orgId: string;
  const colls: string[] = [];

  test.before.each(async () => {
    s = await open();
    userId = newUuid();
    await s.accounts.createUser({ id: userId, email: `u-${userId}@example.com`, name: 'U', createdAt: nowIso() });
    orgId = newUuid();
    await s.accounts.createOrganization({ id: orgId, name: 'Org', slug: `org-${orgId.slice(0, 8)}` }, userId);
    colls.length = 0;
    for (const n of ['A', 'B']) {
      const c = await s.collections.create({
        id: newUuid(),
        organizationId: orgId,
        name: n,
        icon: null,
        type: 'media',
        createdAt: nowIso(),
        updatedAt: nowIso(),
        createdById: userId,
      });
      colls.push(c.id);
    }
  });
  test.after.each(async () => s.close());

  async function item(collectionId: string, blobKey: string, type: MediaType = 'image', vector?: number[]) {
    const media: NewMedia = {
      id: newMediaId(),
      collectionId,
      organizationId: orgId,
      parentPath: pathLabel(collectionId),
      type,
      name: 'x.jpg',
      blobKey,
      mimeType: 'image/jpeg',
      width: 1,
      height: 1,
      duration: null,
      sizeBytes: 1,
      exif: {},
      metadata: {},
      processingStatus: 'ready',
      createdById: userId,
    };
    const frameId = newMediaId();
    const m = await s.media.insert(media, [{ id: frameId, timestamp: '0', blobKey, width: 1, height: 1 }]);
    if (vector)
      await s.analysis.replaceModelObjects(frameId, 'frame', [
        {
          id: newMediaId(),
          type: 'frame',
          label: 'frame',
          blobKey: null,
          polygon: [],
          confidence: null,
          model: 'emb',
          similarityModel: 'objects',
          embedding: { modelId: 'emb:1', vector: Float32Array.from(vector) },
        },
      ]);
    return m.id;
  }

  test('exactGroups: live images and videos of the collection sharing a blob key', async () => {
    const a1 = await item(colls[0], 'a.jpg');
    const a2 = await item(colls[0], 'a.jpg');
    const gone = await item(colls[0], 'a.jpg');
    await s.media.softDelete(gone, userId);
    await item(colls[1], 'a.jpg'); // another collection
    await item(colls[0], 'b.jpg');
    const gone2 = await item(colls[0], 'c.jpg');
    await item(colls[0], 'c.jpg');
    await s.media.softDelete(gone2, userId);
    const groups = await s.duplicates.exactGroups(colls[0]);
    assert.equal(groups, [[a1, a2].sort()]);
    assert.equal(await s.duplicates.exactGroups(colls[1]), []);
  });

  test('imageVectors: pages of live images whose frame has a vector of the model, in key order', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await item(colls[0], `${i}.jpg`, 'image', [1, i, 0, 0, 0, 0, 0, 0]));
    await item(colls[0], 'novec.jpg');
    await item(colls[0], 'clip.mp4', 'video', [0, 1, 0, 0, 0, 0, 0, 0]);
    await item(colls[1], 'other.jpg', 'image', [1, 0, 0, 0, 0, 0, 0, 0]);
    await s.media.softDelete(ids[4], userId);
    const first = await s.duplicates.imageVectors(colls[0], 'emb:1', null, 3);
    assert.is(first.length, 3);
    const rest = await s.duplicates.imageVectors(colls[0], 'emb:1', first[2].key, 3);
    const all = [...first, ...rest];
    assert.equal(
      all.map((r) => r.key),
      [...all.map((r) => r.key)].sort(),
      'in key order',
    );
    assert.equal(
      all.map((r) => r.mediaId).sort(),
      ids.slice(0, 4).sort(),
      'the live images, each once; not the deleted one, the video, the one without a vector or the other collection',
    );
    const i = ids.indexOf(first[0].mediaId);
    assert.equal([...first[0].vector], [1, i, 0, 0, 0, 0, 0, 0]);
    assert.equal(await s.duplicates.imageVectors(colls[0], 'emb:2', null, 3), [], 'another model: none');
  });

  test('saveScan replaces the scan and its groups; dismissals are kept once per member set', async () => {
    assert.is(await s.duplicates.getScan(colls[0]), null);
    assert.equal(await s.duplicates.groups(colls[0]), []);
    const at = nowIso();
    const scan = { collectionId: colls[0], modelId: 'emb:1', threshold: 0.95, items: 7, scannedAt: at };
    await s.duplicates.saveScan(scan, [
      { kind: 'exact', similarity: 1, mediaIds: ['b', 'a'] },
      { kind: 'near', similarity: 0.97, mediaIds: ['c', 'd', 'e'] },
    ]);
    assert.equal(await s.duplicates.getScan(colls[0]), scan);
    assert.equal(await s.duplicates.groups(colls[0]), [
      { kind: 'exact', similarity: 1, mediaIds: ['a', 'b'] },
      { kind: 'near', similarity: 0.97, mediaIds: ['c', 'd', 'e'] },
    ]);
    const again = { ...scan, modelId: null, threshold: null, items: 2 };
    await s.duplicates.saveScan(again, [{ kind: 'exact', similarity: 1, mediaIds: ['x', 'y'] }]);
    assert.equal(await s.duplicates.getScan(colls[0]), again);
    assert.equal(await s.duplicates.groups(colls[0]), [{ kind: 'exact', similarity: 1, mediaIds: ['x', 'y'] }]);
    assert.equal(await s.duplicates.groups(colls[1]), [], 'per collection');

    await s.duplicates.dismiss(colls[0], { mediaIds: ['y', 'x'], dismissedById: userId, dismissedAt: at });
    await s.duplicates.dismiss(colls[0], { mediaIds: ['x', 'y'], dismissedById: userId, dismissedAt: at });
    assert.equal(await s.duplicates.dismissals(colls[0]), [
      { mediaIds: ['x', 'y'], dismissedById: userId, dismissedAt: at },
    ]);
    assert.equal(await s.duplicates.dismissals(colls[1]), []);
  });

  test.run();
}
