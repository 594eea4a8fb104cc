/**
 * What the viewer's AI tools (issue #28) need of the API, through the real server: tag answers say their
 * model, an edited image (after several edits) is saved as a version, a generation reports its progress as
 * `job.progress` events, and a missing model's 503 names it in `model`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, startTestApp, waitForProcessing, type TestApp } from '../../helpers/testApp.js';

const t = suite<{ app: TestApp; datasetId: string; mediaId: string; blob: string }>('ai tools API');

t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.datasetId = await ctx.app.collection('AI');
  const bytes = await makeImage({ width: 96, height: 64, color: { r: 30, g: 40, b: 220 } });
  const up = await ctx.app.upload({ datasetId: ctx.datasetId }, { bytes, filename: 'blue.jpg', type: 'image/jpeg' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  ctx.mediaId = up.body.mediaId;
  const media = await waitForProcessing(ctx.app, ctx.mediaId);
  ctx.blob = media.blob;
});
t.after(async (ctx) => ctx.app?.close());

t('tag answers name the model that scored them (with and without choices)', async ({ app, blob }) => {
  const free = await app.request('POST', '/api/ai/tag', { body: { image: blob } });
  assert.is(free.status, 200, JSON.stringify(free.body));
  assert.ok(free.body.tags.length > 0);
  assert.type(free.body.model, 'string');
  assert.type(free.body.captionModel, 'string');
  const chosen = await app.request('POST', '/api/ai/tag', { body: { image: blob, choices: ['blue', 'red'] } });
  assert.is(chosen.status, 200, JSON.stringify(chosen.body));
  assert.is(chosen.body.model, free.body.model);
  assert.is(chosen.body.all_scores.length, 2);
  const described = await app.request('POST', '/api/ai/describe', { body: { image: blob } });
  assert.is(described.status, 200);
  assert.type(described.body.model, 'string');
});

t('two edits in a row, then the last one saved as a new version', async ({ app, mediaId, blob }) => {
  const first = await app.request('POST', '/api/ai/edit', { body: { image: blob, prompt: 'rotate 90 degrees' } });
  assert.is(first.status, 200, JSON.stringify(first.body));
  const second = await app.request('POST', '/api/ai/edit', {
    body: { image: first.body.edited_image, prompt: 'make it black and white' },
  });
  assert.is(second.status, 200, JSON.stringify(second.body));
  const saved = await app.request('POST', `/api/media/${mediaId}/versions`, {
    body: { image: second.body.edited_image },
  });
  assert.is(saved.status, 200, JSON.stringify(saved.body));
  assert.is.not(saved.body.media.id, mediaId);
  assert.is(saved.body.media.width, 64, 'rotated: 64 wide');
  const versions = await app.request('GET', `/api/media/${mediaId}/versions`);
  assert.is(versions.body.versions.length, 2);
  assert.ok(versions.body.versions.some((v: { id: string }) => v.id === saved.body.media.id));
});

t('saving a version refuses what is not an edit output, and unknown items', async ({ app, mediaId, blob }) => {
  const notOutput = await app.request('POST', `/api/media/${mediaId}/versions`, { body: { image: blob } });
  assert.is(notOutput.status, 400, JSON.stringify(notOutput.body));
  const forged = await app.request('POST', `/api/media/${mediaId}/versions`, {
    body: { image: `${app.baseUrl}/files/out/forged/${'a'.repeat(64)}.png` },
  });
  assert.is(forged.status, 400);
  const edit = await app.request('POST', '/api/ai/edit', { body: { image: blob, prompt: 'flip horizontally' } });
  const unknown = await app.request('POST', `/api/media/${'0'.repeat(32)}/versions`, {
    body: { image: edit.body.edited_image },
  });
  assert.is(unknown.status, 404);
  assert.equal(Object.keys(unknown.body).sort(), ['error', 'message']);
  // A viewer may describe and tag (the AI routes take any role) but not add a version.
  const viewer = await app.request('POST', '/api/keys', { body: { role: 'viewer', name: 'viewer' } });
  const asViewer = await app.request('POST', `/api/media/${mediaId}/versions`, {
    body: { image: edit.body.edited_image },
    key: viewer.body.key,
  });
  assert.is(asViewer.status, 403, JSON.stringify(asViewer.body));
  const tagged = await app.request('POST', '/api/ai/tag', { body: { image: blob }, key: viewer.body.key });
  assert.is(tagged.status, 200);
});

t('a generation reports its progress as job.progress events with its jobId', async ({ app }) => {
  const r = await app.request('POST', '/api/ai/generate', {
    body: { prompt: 'a lighthouse at dusk' },
    headers: { prefer: 'respond-async' },
  });
  assert.is(r.status, 202, JSON.stringify(r.body));
  const until = Date.now() + 60_000;
  let status = '';
  while (status !== 'succeeded' && Date.now() < until) {
    await new Promise((res) => setTimeout(res, 100));
    status = (await app.request('GET', `/api/ai/jobs/${r.body.jobId}`)).body.status;
  }
  assert.is(status, 'succeeded');
  const events = await app.app.services.storage.events.after({ organizationId: app.orgId, afterId: 0, limit: 1000 });
  const mine = events
    .filter((e) => e.type === 'job.progress' && (e.data as { jobId?: string }).jobId === r.body.jobId)
    .map((e) => e.data as { job: string; status: string; progress: number });
  assert.ok(mine.length >= 2, JSON.stringify(mine));
  assert.is(mine[0].job, 'generate');
  assert.is(mine[mine.length - 1].status, 'succeeded');
  assert.is(mine[mine.length - 1].progress, 1);
});

t.run();

const missing = suite('ai tools API: missing models');

missing('a 503 for a model that is not installed names it in `model`', async () => {
  const modelsDir = mkdtempSync(path.join(os.tmpdir(), 'ai-nomodels-'));
  const app = await startTestApp({ ingestConcurrency: 0 }, { MODEL_PROFILE: 'default', MODELS_DIR: modelsDir });
  try {
    const image = `data:image/jpeg;base64,${(await makeImage()).toString('base64')}`;
    const d = await app.request('POST', '/api/ai/describe', { body: { image } });
    assert.is(d.status, 503, JSON.stringify(d.body));
    assert.is(d.body.model, 'florence-2-base');
    assert.match(d.body.message, /florence-2-base/);
    const g = await app.request('POST', '/api/ai/generate', { body: { prompt: 'a red apple' } });
    assert.is(g.status, 503);
    assert.is(g.body.model, 'janus-pro-1b');
  } finally {
    await app.close();
    rmSync(modelsDir, { recursive: true, force: true });
  }
});

missing.run();
