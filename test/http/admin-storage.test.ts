/**
 * Issue #28, the storage screen's figures through the HTTP app: items per processing status and original bytes per
 * collection, deleted items apart, derived files measured when asked, the database's size; admins only.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, startTestApp, waitForProcessing, type TestApp } from '../helpers/testApp.js';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after(async () => app?.close());

test('bytes and items per collection; derived files on request; admins only', async () => {
  const a = await app.collection('A');
  const b = await app.collection('B');
  const sizes: number[] = [];
  const ids: string[] = [];
  for (const [ds, color] of [
    [a, { r: 250, g: 0, b: 0 }],
    [a, { r: 0, g: 250, b: 0 }],
    [b, { r: 0, g: 0, b: 250 }],
  ] as const) {
    const bytes = await makeImage({ width: 300, height: 200, color });
    const up = await app.upload({ datasetId: ds }, { bytes, filename: 'x.jpg' });
    assert.is(up.status, 200, JSON.stringify(up.body));
    sizes.push(bytes.length);
    ids.push(up.body.mediaId);
  }
  for (const id of ids) assert.is((await waitForProcessing(app, id, 60_000)).processingStatus, 'ready');
  assert.is((await app.request('DELETE', `/api/media/${ids[2]}`)).status, 200);

  const r = await app.request('GET', '/api/admin/storage');
  assert.is(r.status, 200, JSON.stringify(r.body));
  const ca = r.body.collections.find((c: any) => c.id === a);
  const cb = r.body.collections.find((c: any) => c.id === b);
  assert.equal(ca.items, { pending: 0, processing: 0, ready: 2, failed: 0 });
  assert.is(ca.originalBytes, sizes[0] + sizes[1]);
  assert.is(ca.derivedBytes, null, 'not measured unless asked');
  assert.equal(cb.items, { pending: 0, processing: 0, ready: 0, failed: 0 });
  assert.is(cb.deletedBytes, sizes[2]);
  assert.is(r.body.organization.items, 2);
  assert.is(r.body.organization.originalBytes, sizes[0] + sizes[1]);
  assert.ok(r.body.database.bytes > 0);

  const measured = await app.request('GET', '/api/admin/storage?derived=true');
  const ma = measured.body.collections.find((c: any) => c.id === a);
  assert.ok(ma.derivedBytes > 0, 'renditions and frames are measured');
  assert.is(measured.body.organization.derivedBytes >= ma.derivedBytes, true);

  const member = await app.request('POST', '/api/keys', { body: { role: 'member' } });
  assert.is((await app.request('GET', '/api/admin/storage', { key: member.body.key })).status, 403);
  assert.is((await app.request('GET', '/api/admin/storage?derived=maybe')).status, 400);
});

test.run();
