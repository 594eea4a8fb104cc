/**
 * Issue #28, the air-gapped path through the HTTP app: a model bundle uploaded to POST /api/models/import is
 * verified as the CLI does (a damaged one is refused with nothing installed), installed, and an item whose
 * embedding stages waited for it catches up by itself. Admins only.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BUNDLE_MODEL, standinBundle } from '../helpers/modelBundle.js';
import { makeImage, startTestApp, waitForProcessing, type TestApp } from '../helpers/testApp.js';
import { tempModelsDir } from '../models/helpers.js';

const tmp = tempModelsDir('lumen-admin-models-');
let app: TestApp;
let bundle: string;
let modelsDir: string;

test.before(async () => {
  const built = await standinBundle(tmp.dir);
  bundle = built.bundle;
  modelsDir = built.modelsDir;
  app = await startTestApp({}, built.env);
});
test.after(async () => {
  await app?.close();
  tmp.cleanup();
});

async function importFile(bytes: Buffer, key = app.key) {
  const form = new FormData();
  form.append('file', new Blob([bytes]), 'models.tar');
  const res = await fetch(app.baseUrl + '/api/models/import', {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('a damaged bundle is refused with nothing installed; a member may not import', async () => {
  const bytes = readFileSync(bundle);
  const cut = await importFile(bytes.subarray(0, Math.floor(bytes.length / 2)));
  assert.is(cut.status, 422, JSON.stringify(cut.body));
  assert.match(cut.body.message, /nothing installed/);
  assert.not.ok(existsSync(path.join(modelsDir, BUNDLE_MODEL)), 'nothing installed');
  const member = await app.request('POST', '/api/keys', { body: { role: 'member' } });
  assert.is((await importFile(bytes, member.body.key)).status, 403);
  const none = await fetch(app.baseUrl + '/api/models/import', {
    method: 'POST',
    headers: { 'x-api-key': app.key },
    body: new FormData(),
  });
  assert.is(none.status, 400);
});

test('a download asked for while downloads are off is refused with the reason; an unknown model is 404', async () => {
  const off = await app.request('POST', `/api/models/${BUNDLE_MODEL}/fetch`);
  assert.is(off.status, 409, JSON.stringify(off.body));
  assert.match(off.body.message, /AUTO_FETCH_MODELS=0.*import a model bundle/);
  assert.is((await app.request('POST', '/api/models/no-such-model/fetch')).status, 404);
});

test('an uploaded bundle installs the model and the waiting item catches up', async () => {
  const ds = await app.collection('Waiting');
  const up = await app.upload({ datasetId: ds }, { bytes: await makeImage(), filename: 'a.jpg' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  const waiting = await waitForProcessing(app, up.body.mediaId, 60_000);
  assert.is(waiting.analysis.embeddings, `waiting for model ${BUNDLE_MODEL}`);
  const before = (await app.request('GET', '/api/models')).body.models.find((m: any) => m.name === BUNDLE_MODEL);
  assert.is.not(before.state, 'installed');
  assert.is(before.waiting.items, 1, 'the models page counts the item waiting for it');
  assert.is(before.waiting.stages.embeddings, 1, JSON.stringify(before.waiting));

  const imported = await importFile(readFileSync(bundle));
  assert.is(imported.status, 200, JSON.stringify(imported.body));
  assert.equal(
    imported.body.models.map((m: any) => m.name),
    [BUNDLE_MODEL],
  );
  const after = (await app.request('GET', '/api/models')).body.models.find((m: any) => m.name === BUNDLE_MODEL);
  assert.is(after.state, 'installed');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const m = (await app.request('GET', `/api/media/${up.body.mediaId}`)).body.media;
    if (m.analysis.embeddings === 'done') break;
    if (Date.now() > deadline) throw new Error(`not caught up: ${JSON.stringify(m.analysis)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const caught = (await app.request('GET', '/api/models')).body.models.find((m: any) => m.name === BUNDLE_MODEL);
  assert.equal(caught.waiting, { items: 0, stages: {} }, 'nothing waits for it any more');
});

test('a bundle has its own limit, MAX_MODEL_BUNDLE_BYTES, not MAX_UPLOAD_BYTES; above it a 413 names it', async () => {
  const small = await startTestApp({ maxUploadBytes: 1000, maxModelBundleBytes: 50_000 });
  try {
    const send = async (bytes: number) => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(bytes, 1)]), 'models.tar');
      const headers = { 'x-api-key': small.key };
      const res = await fetch(small.baseUrl + '/api/models/import', { method: 'POST', headers, body: form });
      return { status: res.status, body: (await res.json()) as { error: string; message: string } };
    };
    const within = await send(20_000);
    assert.is(within.status, 422, `read and judged a bundle above MAX_UPLOAD_BYTES: ${JSON.stringify(within.body)}`);
    for (const bytes of [60_000, 3 * 1024 ** 2]) {
      const over = await send(bytes); // streamed past the limit; declared far past it (refused before reading)
      assert.is(over.status, 413, JSON.stringify(over.body));
      assert.match(over.body.message, 'MAX_MODEL_BUNDLE_BYTES (50000 bytes)');
    }
    assert.equal(readdirSync(path.join(small.dataDir, 'tmp')), [], 'no scratch file left');
    const upload = await small.upload(
      { datasetId: await small.collection('C') },
      { bytes: Buffer.alloc(5000, 1), filename: 'x.jpg' },
    );
    assert.is(upload.status, 413, 'MAX_UPLOAD_BYTES still holds for uploads');
  } finally {
    await small.close();
  }
});

test.run();
