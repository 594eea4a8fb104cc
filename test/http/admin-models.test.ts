/**
 * Issue #28, the air-gapped path through the HTTP app: a model bundle uploaded to POST /api/models/import is
 * verified as the CLI does (a damaged one is refused with nothing installed), installed, and an item whose
 * embedding stages waited for it catches up by itself. Admins only.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
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
});

test.run();
