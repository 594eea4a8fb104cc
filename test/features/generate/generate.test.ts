import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { makeImage, startTestApp, type TestApp } from '../../helpers/testApp.js';

/**
 * POST /api/ai/generate and GET /api/ai/jobs/{id} end to end with the Janus
 * stand-in (MODEL_PROFILE=test): the real transformers.js
 * MultiModalityCausalLM.generate_images in the dedicated generation worker.
 * The stand-in paints the colours named in the prompt on a 4×4 grid, 64×64.
 */
const t = suite<{ app: TestApp }>('generate');
t.before(async (ctx) => {
  ctx.app = await startTestApp();
});
t.after(async (ctx) => ctx.app.close());

/** Downloads an answer's image: decoded size and mean RGB. */
async function fetchImage(url: string) {
  const res = await fetch(url);
  assert.is(res.status, 200, `GET ${url}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const meta = await sharp(bytes).metadata();
  const { channels } = await sharp(bytes).stats();
  return {
    format: meta.format,
    width: meta.width!,
    height: meta.height!,
    mean: channels.slice(0, 3).map((c) => c.mean),
  };
}

async function poll(app: TestApp, statusUrl: string, key?: string) {
  const path = new URL(statusUrl).pathname;
  const seen: number[] = [];
  for (let i = 0; i < 300; i++) {
    const r = await app.request('GET', path, key ? { key } : {});
    assert.is(r.status, 200, JSON.stringify(r.body));
    seen.push(r.body.progress);
    if (r.body.status === 'succeeded' || r.body.status === 'failed') return { last: r.body, seen };
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('job did not settle');
}

t(
  'sync: answers {url, result, model} with a PNG in the requested ratio; a red prompt comes out red',
  async ({ app }) => {
    const r = await app.request('POST', '/api/ai/generate', {
      body: { prompt: 'a red apple on a table', aspectRatio: '16:9' },
    });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.type(r.body.url, 'string');
    assert.is(r.body.result, r.body.url);
    assert.is(r.body.model, 'janus-pro-1b');
    assert.is(r.body.aspectRatio, '16:9');
    assert.is(r.body.aspectRatioMethod, 'crop');
    assert.type(r.body.processing_time, 'number');
    const img = await fetchImage(r.body.url);
    assert.is(img.format, 'png');
    assert.is(img.width, r.body.width);
    assert.is(img.height, r.body.height);
    assert.ok(Math.abs(img.width / img.height - 16 / 9) < 0.05, `${img.width}x${img.height}`);
    const [red, green, blue] = img.mean;
    assert.ok(red > 150 && red > 2 * green && red > 2 * blue, `reddish: ${img.mean.map(Math.round)}`);

    // Same prompt → same image (seeded sampling); a blue prompt → blue.
    const again = await app.request('POST', '/api/ai/generate', {
      body: { prompt: 'a red apple on a table', aspectRatio: '16:9' },
    });
    assert.is(again.body.url, r.body.url, 'same bytes, same content-addressed URL');
    const b = await app.request('POST', '/api/ai/generate', { body: { prompt: 'A BLUE car' } });
    assert.is(b.status, 200);
    assert.is(b.body.aspectRatio, '1:1');
    assert.is(b.body.width, b.body.height);
    const bi = await fetchImage(b.body.url);
    assert.ok(bi.mean[2] > 2 * bi.mean[0], `bluish: ${bi.mean.map(Math.round)}`);
  },
);

t('portrait and extreme ratios: 9:16 is cropped, 21:9 outpainted then cropped', async ({ app }) => {
  const p = await app.request('POST', '/api/ai/generate', { body: { prompt: 'a green tree', aspectRatio: '9:16' } });
  assert.is(p.status, 200, JSON.stringify(p.body));
  const pi = await fetchImage(p.body.url);
  assert.ok(Math.abs(pi.width / pi.height - 9 / 16) < 0.05, `${pi.width}x${pi.height}`);
  const w = await app.request('POST', '/api/ai/generate', { body: { prompt: 'a green field', aspectRatio: '21:9' } });
  assert.is(w.status, 200, JSON.stringify(w.body));
  assert.is(w.body.aspectRatioMethod, 'outpaint+crop');
  const wi = await fetchImage(w.body.url);
  assert.ok(Math.abs(wi.width / wi.height - 21 / 9) < 0.06, `${wi.width}x${wi.height}`);
  assert.ok(wi.width > 64, 'wider than the model square: outpainted');
});

t(
  'async: Prefer: respond-async → 202 {jobId, statusUrl}; polling reaches succeeded with the same answer and progress 1',
  async ({ app }) => {
    const r = await app.request('POST', '/api/ai/generate', {
      body: { prompt: 'a yellow sun', aspectRatio: '4:3' },
      headers: { prefer: 'respond-async' },
    });
    assert.is(r.status, 202, JSON.stringify(r.body));
    assert.type(r.body.jobId, 'string');
    assert.ok(r.body.statusUrl.startsWith(app.baseUrl + '/api/ai/jobs/'), r.body.statusUrl);
    assert.is(r.headers.get('preference-applied'), 'respond-async');
    const { last, seen } = await poll(app, r.body.statusUrl);
    assert.is(last.status, 'succeeded', JSON.stringify(last));
    assert.is(last.id, r.body.jobId);
    assert.is(last.progress, 1);
    assert.ok(
      seen.every((x, i) => i === 0 || x >= seen[i - 1]),
      `progress never goes back: ${seen}`,
    );
    const result = last.result;
    assert.is(result.result, result.url);
    assert.is(result.model, 'janus-pro-1b');
    assert.is(result.aspectRatio, '4:3');
    const img = await fetchImage(result.url);
    assert.ok(Math.abs(img.width / img.height - 4 / 3) < 0.05);
    // The sync answer for the same request is the same image.
    const sync = await app.request('POST', '/api/ai/generate', {
      body: { prompt: 'a yellow sun', aspectRatio: '4:3' },
    });
    assert.is(sync.body.url, result.url);
  },
);

t('another organization cannot see a job (404), nor can anyone see a non-job id', async ({ app }) => {
  const r = await app.request('POST', '/api/ai/generate', {
    body: { prompt: 'a purple flower' },
    headers: { prefer: 'respond-async' },
  });
  assert.is(r.status, 202);
  const org = (await app.request('POST', '/api/auth/organization/create', { body: { name: 'Other org' } })).body
    .organization;
  const k = await app.request('POST', '/api/keys', { body: { organizationId: org.id, name: 'other' } });
  assert.is(k.status, 200, JSON.stringify(k.body));
  const path = new URL(r.body.statusUrl).pathname;
  const other = await app.request('GET', path, { key: k.body.key });
  assert.is(other.status, 404, JSON.stringify(other.body));
  assert.is(other.body.error, 'Not Found');
  assert.is((await app.request('GET', '/api/ai/jobs/999999')).status, 404);
  assert.is((await app.request('GET', '/api/ai/jobs/abc')).status, 404);
  const mine = await poll(app, r.body.statusUrl);
  assert.is(mine.last.status, 'succeeded');
});

t('400: empty or missing prompt, unknown aspectRatio', async ({ app }) => {
  for (const body of [
    { prompt: '' },
    { prompt: '   ' },
    {},
    { prompt: 'a cat', aspectRatio: '7:3' },
    { prompt: 'a cat', aspectRatio: 'wide' },
  ]) {
    const r = await app.request('POST', '/api/ai/generate', { body });
    assert.is(r.status, 400, `${JSON.stringify(body)} → ${r.status} ${JSON.stringify(r.body)}`);
    assert.is(r.body.error, 'Bad Request');
    assert.type(r.body.message, 'string');
  }
});

t(
  'compat: `image` array as references (colour guidance), a hosted model name maps to ours, match_input_image',
  async ({ app }) => {
    const blue = `data:image/png;base64,${(await makeImage({ width: 90, height: 60, color: { r: 20, g: 40, b: 230 }, format: 'png' })).toString('base64')}`;
    const plain = await app.request('POST', '/api/ai/generate', { body: { prompt: 'a red apple' } });
    const r = await app.request('POST', '/api/ai/generate', {
      body: { prompt: 'a red apple', image: [blue], model: 'google/nano-banana', aspectRatio: 'match_input_image' },
    });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.is(r.body.model, 'janus-pro-1b');
    assert.is(r.body.modelRequested, 'google/nano-banana');
    assert.match(r.body.referenceImagesUsed, /colour guidance/);
    assert.is(r.body.aspectRatio, '3:2', 'the reference is 90×60');
    const guided = await fetchImage(r.body.url);
    const unguided = await fetchImage(plain.body.url);
    assert.ok(Math.abs(guided.width / guided.height - 1.5) < 0.05);
    assert.ok(
      guided.mean[2] > unguided.mean[2] + 40,
      `bluer with a blue reference: ${guided.mean.map(Math.round)} vs ${unguided.mean.map(Math.round)}`,
    );
    assert.ok(guided.mean[0] < unguided.mean[0], 'less red');
    // referenceImages (interface.md's name) works the same; a hosted name never refuses.
    const s = await app.request('POST', '/api/ai/generate', {
      body: { prompt: 'a red apple', referenceImages: [blue], model: 'flux-kontext-max' },
    });
    assert.is(s.status, 200);
    assert.is(s.body.model, 'janus-pro-1b');
    assert.is(s.body.modelRequested, 'flux-kontext-max');
    const bad = await app.request('POST', '/api/ai/generate', {
      body: { prompt: 'x', image: ['data:image/png;base64,AAAA'] },
    });
    assert.ok([400, 422].includes(bad.status), `undecodable reference: ${bad.status}`);
  },
);

t.run();

const q = suite<{ app: TestApp }>('generate: queue limit');
q.before(async (ctx) => {
  ctx.app = await startTestApp({}, { GENERATE_MAX_QUEUE: '0' });
});
q.after(async (ctx) => ctx.app.close());

q(
  'queue full → 429 with Retry-After (GENERATE_MAX_QUEUE=0: nothing may wait behind the running one)',
  async ({ app }) => {
    const first = await app.request('POST', '/api/ai/generate', {
      body: { prompt: 'a red apple' },
      headers: { prefer: 'respond-async' },
    });
    assert.is(first.status, 202);
    // The generation worker is still starting (it loads transformers.js on first use): the first job is in the way.
    const second = await app.request('POST', '/api/ai/generate', {
      body: { prompt: 'a blue apple' },
      headers: { prefer: 'respond-async' },
    });
    assert.is(second.status, 429, JSON.stringify(second.body));
    assert.is(second.body.error, 'Too Many Requests');
    assert.ok(Number(second.headers.get('retry-after')) >= 1);
    const { last } = await poll(app, first.body.statusUrl);
    assert.is(last.status, 'succeeded');
    const third = await app.request('POST', '/api/ai/generate', { body: { prompt: 'a blue apple' } });
    assert.is(third.status, 200, 'free again once the first finished');
  },
);

q.run();
