import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { makeImage, startTestApp, type TestApp } from '../helpers/testApp.js';

/**
 * The AI endpoints end to end with the stand-in models (MODEL_PROFILE=test):
 * the embedder maps images to their dominant colour and texts to colour words,
 * the captioner names the colour.
 */
const t = suite<{ app: TestApp }>('AI endpoints');
t.before(async (ctx) => {
  ctx.app = await startTestApp();
});
t.after(async (ctx) => ctx.app.close());

const RED = { r: 220, g: 20, b: 20 };
const BLUE = { r: 20, g: 30, b: 220 };
const dataUri = async (color = RED, format: 'png' | 'jpeg' | 'gif' | 'tiff' = 'png') =>
  `data:image/${format};base64,${(await makeImage({ color, format })).toString('base64')}`;
const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

t('describe: the captioner names the colour and says which model answered', async ({ app }) => {
  const r = await app.request('POST', '/api/ai/describe', { body: { image: await dataUri() } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.description, /red/);
  assert.is(r.body.model, 'florence-2-base');
  const p = await app.request('POST', '/api/ai/describe', {
    body: { image: await dataUri(BLUE), prompt: 'What colour is it?' },
  });
  assert.is(p.status, 200);
  assert.match(p.body.description, /blue/);
  assert.is(p.body.promptFollowed, false, 'no prompt-following model in the test profile');
  assert.type(p.body.note, 'string');
  const gif = await app.request('POST', '/api/ai/describe', { body: { image: await dataUri(RED, 'gif') } });
  assert.is(gif.status, 200, 'GIF is accepted for describe');
});

t('tag shape 1: free tags, classification with choices, single', async ({ app }) => {
  const free = await app.request('POST', '/api/ai/tag', { body: { image: await dataUri() } });
  assert.is(free.status, 200, JSON.stringify(free.body));
  assert.ok(free.body.tags.length > 0);
  assert.match(free.body.tags[0].tag, /red/);
  for (const x of free.body.tags) assert.ok(x.confidence >= 0 && x.confidence <= 1);
  const cls = await app.request('POST', '/api/ai/tag', {
    body: { image: await dataUri(BLUE), choices: ['red', 'green', 'blue'] },
  });
  assert.is(cls.body.classification, 'blue');
  assert.ok(cls.body.confidence > 0.5);
  assert.is(cls.body.all_scores.length, 3);
  const sum = cls.body.all_scores.reduce((s: number, x: { score: number }) => s + x.score, 0);
  assert.ok(Math.abs(sum - 1) < 0.01);
  const single = await app.request('POST', '/api/ai/tag', {
    body: { image: await dataUri(BLUE), choices: ['red', 'blue'], single: true },
  });
  assert.is(single.body.classification, 'blue');
  assert.is(single.body.all_scores.length, 1);
});

t('tag shape 2: options and multiple, raw says how it was answered', async ({ app }) => {
  const r = await app.request('POST', '/api/ai/tag', {
    body: {
      image: await dataUri(),
      prompt: 'Which colours are in this picture?',
      options: ['red', 'green', 'blue'],
      multiple: false,
    },
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.tags, ['red']);
  assert.is(r.body.raw.method, 'zero-shot');
  const m = await app.request('POST', '/api/ai/tag', {
    body: { image: await dataUri(BLUE), prompt: 'colours?', multiple: true, options: ['blue', 'yellow'] },
  });
  assert.ok(m.body.tags.includes('blue'));
  assert.is(
    (await app.request('POST', '/api/ai/tag', { body: { image: await dataUri(), options: ['a'] } })).status,
    400,
    'shape 2 needs a prompt',
  );
});

t('embeddings: both shapes, models, normalised, deterministic, shared space', async ({ app }) => {
  const img = await dataUri();
  const a = await app.request('POST', '/api/ai/embeddings', { body: { image: img } });
  assert.is(a.status, 200, JSON.stringify(a.body));
  assert.is(a.body.dimensions, 768);
  assert.is(a.body.embedding.length, 768);
  assert.is(a.body.model, 'default');
  assert.ok(Math.abs(norm(a.body.embedding) - 1) < 1e-4);
  const again = await app.request('POST', '/api/ai/embeddings', { body: { image: img, model: 'default' } });
  assert.equal(again.body.embedding, a.body.embedding, 'deterministic');
  const fast = await app.request('POST', '/api/ai/embeddings', { body: { image: img, model: 'clip-vit-b32' } });
  assert.is(fast.body.dimensions, 512);
  const unknown = await app.request('POST', '/api/ai/embeddings', { body: { image: img, model: 'no-such-model' } });
  assert.is(unknown.status, 400);
  assert.is(unknown.body.error, 'Bad Request');
  const notEmbedder = await app.request('POST', '/api/ai/embeddings', {
    body: { image: img, model: 'florence-2-base' },
  });
  assert.is(notEmbedder.status, 400);
  // Shape 2: text and image auto-detected; image and text share a space.
  const red = await app.request('POST', '/api/ai/embeddings', { body: { input: 'a red thing' } });
  const blue = await app.request('POST', '/api/ai/embeddings', { body: { input: 'something blue', type: 'text' } });
  assert.is(red.body.embedding.length, 768);
  assert.ok(dot(a.body.embedding, red.body.embedding) > dot(a.body.embedding, blue.body.embedding));
  const asImage = await app.request('POST', '/api/ai/embeddings', { body: { input: img } });
  assert.equal(asImage.body.embedding, a.body.embedding);
  // compat /api/ai/embed
  const e1 = await app.request('POST', '/api/ai/embed', { body: { text: 'red' } });
  const e2 = await app.request('POST', '/api/ai/embed', { body: { image: img } });
  assert.is(e1.status, 200);
  assert.is(e2.body.embedding.length, 768);
  assert.is((await app.request('POST', '/api/ai/embed', { body: {} })).status, 400);
});

t('image inputs: own file URLs read from the store; SSRF refusals; bad bytes 422', async ({ app }) => {
  const ds = await app.collection('AI inputs');
  const up = await app.upload({ datasetId: ds }, { bytes: await makeImage({ color: BLUE }), filename: 'b.jpg' });
  const r = await app.request('POST', '/api/ai/describe', { body: { image: up.body.url } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.description, /blue/);
  for (const url of [
    'http://127.0.0.1:9/x.png',
    'http://localhost/x.png',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/a.png',
    'file:///etc/passwd',
  ]) {
    const bad = await app.request('POST', '/api/ai/describe', { body: { image: url } });
    assert.is(bad.status, 400, url);
    assert.is(bad.body.error, 'Bad Request');
  }
  const junk = await app.request('POST', '/api/ai/describe', {
    body: { image: `data:image/png;base64,${Buffer.from('not an image at all').toString('base64')}` },
  });
  assert.is(junk.status, 422);
  assert.is(junk.body.error, 'Unprocessable Entity');
  const tiff = await app.request('POST', '/api/ai/embeddings', { body: { image: await dataUri(RED, 'tiff') } });
  assert.is(tiff.status, 422, 'TIFF is not among the accepted formats');
  const missing = await app.request('POST', '/api/ai/describe', { body: {} });
  assert.is(missing.status, 400);
  assert.match(missing.body.message, /image/);
});

t('OFFLINE=1: remote image URLs are refused without any network access; own files still work', async () => {
  const app = await startTestApp({ offline: true });
  try {
    const ds = await app.collection('Offline');
    const up = await app.upload({ datasetId: ds }, { bytes: await makeImage({ color: RED }), filename: 'r.jpg' });
    const own = await app.request('POST', '/api/ai/describe', { body: { image: up.body.url } });
    assert.is(own.status, 200, JSON.stringify(own.body));
    const remote = await app.request('POST', '/api/ai/describe', { body: { image: 'https://example.com/cat.jpg' } });
    assert.is(remote.status, 400);
    assert.match(remote.body.message, /offline/);
  } finally {
    await app.close();
  }
});

t('healthz reports loaded models', async ({ app }) => {
  const h = await app.request('GET', '/healthz', { key: null });
  assert.ok(h.body.models.loaded.length > 0, JSON.stringify(h.body.models));
});

t.run();

const limits = suite('AI limits: JSON body cap and inference back-pressure');
limits('413 above MAX_JSON_BYTES; 429 with Retry-After when the inference queue is full', async () => {
  const app = await startTestApp({ maxJsonBytes: 50_000, inferenceQueueLength: 2 });
  try {
    const big = await app.request('POST', '/api/ai/describe', {
      body: { image: `data:image/png;base64,${'A'.repeat(60_000)}` },
    });
    assert.is(big.status, 413);
    assert.is(big.body.error, 'Payload Too Large');
    const images = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        sharp({ create: { width: 200, height: 200, channels: 3, background: { r: i * 10, g: 50, b: 100 } } })
          .png()
          .toBuffer(),
      ),
    );
    const replies = await Promise.all(
      images.map((b) =>
        app.request('POST', '/api/ai/embeddings', { body: { image: `data:image/png;base64,${b.toString('base64')}` } }),
      ),
    );
    const statuses = replies.map((r) => r.status);
    assert.ok(statuses.includes(200), statuses.join(','));
    const limited = replies.filter((r) => r.status === 429);
    assert.ok(limited.length > 0, `some requests are refused when the queue is full: ${statuses.join(',')}`);
    assert.is(limited[0].body.error, 'Too Many Requests');
    assert.ok(Number(limited[0].headers.get('retry-after')) >= 1);
    assert.ok(statuses.every((s) => s === 200 || s === 429));
  } finally {
    await app.close();
  }
});
limits.run();
