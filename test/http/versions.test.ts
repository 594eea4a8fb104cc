import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newMediaId } from '../../src/platform/ids.js';
import { makeImage, startTestApp } from '../helpers/testApp.js';

/**
 * Derived versions come from the edit issue; here one is made through the
 * storage layer the way that code will, and the compat.md routes are driven
 * over HTTP.
 */
test('versions: list, select, delete with promotion, item delete removes all', async () => {
  const app = await startTestApp();
  try {
    const ds = await app.collection('Versions');
    const up = await app.upload(
      { datasetId: ds, name: 'orig.jpg' },
      { bytes: await makeImage(), filename: 'orig.jpg' },
    );
    const orig = (await app.request('GET', `/api/media/${up.body.mediaId}`)).body.media;
    await app.request('POST', `/api/media/${orig.id}/tags`, { body: { label: 'kind', value: 'original' } });
    const s = app.app.services;
    const record = (await s.storage.media.get(orig.id))!;
    const frameKey = (await s.blobs.putBuffer(await makeImage({ color: { r: 0, g: 0, b: 0 } }), 'jpg')).key;
    const versionId = newMediaId();
    await s.storage.media.insert(
      {
        id: versionId,
        collectionId: record.collectionId,
        organizationId: record.organizationId,
        parentPath: record.parentPath,
        type: 'image',
        name: 'orig (edited).jpg',
        blobKey: frameKey,
        mimeType: 'image/jpeg',
        width: 64,
        height: 48,
        duration: null,
        sizeBytes: 1000,
        exif: { tags: {} },
        metadata: { tags: { kind: ['edited'] } },
        processingStatus: 'ready',
        createdById: record.createdById,
        rootId: record.id,
      },
      [{ id: newMediaId(), timestamp: '0', blobKey: frameKey, width: 64, height: 48 }],
    );

    const list = await app.request('GET', `/api/dataset/${ds}/media`);
    assert.is(list.body.pagination.total, 1, 'only the current version is listed');
    assert.is(list.body.media[0].id, versionId);
    assert.is(list.body.media[0].totalVersions, 2);
    assert.equal((await app.request('GET', `/api/dataset/${ds}/tags`)).body.tags, { kind: ['edited'] });

    const versions = await app.request('GET', `/api/media/${orig.id}/versions`);
    assert.equal(
      versions.body.versions.map((v: { id: string }) => v.id),
      [orig.id, versionId],
    );

    const sel = await app.request('PATCH', `/api/media/${orig.id}/select-version`, {
      headers: { 'content-type': 'application/json' },
    });
    assert.is(sel.status, 200);
    assert.is((await app.request('GET', `/api/dataset/${ds}/media`)).body.media[0].id, orig.id);
    assert.equal((await app.request('GET', `/api/dataset/${ds}/tags`)).body.tags, { kind: ['original'] });

    const del = await app.request('DELETE', `/api/media/${orig.id}/versions?versionId=${orig.id}`);
    assert.equal(del.body, { deletedId: orig.id, promotedId: versionId });
    assert.is((await app.request('GET', `/api/dataset/${ds}/media`)).body.media[0].id, versionId);
    assert.is((await app.request('GET', `/api/media/${versionId}/versions`)).body.versions.length, 1);
    assert.is((await app.request('DELETE', `/api/media/${orig.id}/versions?versionId=${'f'.repeat(32)}`)).status, 404);

    // A second derived version, then delete the item: every version goes.
    const v3 = newMediaId();
    await s.storage.media.insert(
      {
        id: v3,
        collectionId: record.collectionId,
        organizationId: record.organizationId,
        parentPath: record.parentPath,
        type: 'image',
        name: 'v3.jpg',
        blobKey: frameKey,
        mimeType: 'image/jpeg',
        width: 64,
        height: 48,
        duration: null,
        sizeBytes: 1000,
        exif: { tags: {} },
        metadata: {},
        processingStatus: 'ready',
        createdById: record.createdById,
        rootId: record.id,
      },
      [],
    );
    const gone = await app.request('DELETE', `/api/media/${v3}`);
    assert.equal(gone.body, { id: v3, deletedCount: 2 });
    assert.is((await app.request('GET', `/api/dataset/${ds}/media`)).body.pagination.total, 0);
  } finally {
    await app.close();
  }
});

test.run();
