/**
 * The VisionModels runner in the test profile: real transformers.js loading
 * code, in a worker thread, against generated stand-ins.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../src/platform/errors.js';
import { createVisionModels } from '../../src/models/visionModels.js';
import type { VisionModels } from '../../src/models/types.js';
import { RGB, dot, memoryLogger, mostly, norm, solid, tempModelsDir, testConfig, type ColourName } from './helpers.js';

const tmp = tempModelsDir();
const logger = memoryLogger();
let models: VisionModels;
const images = {} as Record<ColourName, Buffer>;
const COLOUR_NAMES = Object.keys(RGB) as ColourName[];

async function rejects(promise: Promise<unknown>, code: string, pattern?: RegExp): Promise<DomainError> {
  try {
    await promise;
  } catch (err) {
    assert.instance(err, DomainError);
    assert.is((err as DomainError).code, code, (err as Error).message);
    if (pattern) assert.match((err as Error).message, pattern);
    return err as DomainError;
  }
  assert.unreachable(`expected a ${code} rejection`);
  throw new Error('unreachable');
}

test.before(async () => {
  models = createVisionModels(testConfig(tmp.dir), logger);
  for (const c of COLOUR_NAMES) images[c] = await solid(c);
});
test.after(async () => {
  await models.close();
  tmp.cleanup();
});

test('default model: 768-d, L2-normalised, deterministic; first call (worker start + load) and warm per-call cost', async () => {
  let t = performance.now();
  const [a] = await models.embedImages(null, [images.red]);
  const first = performance.now() - t;
  t = performance.now();
  const [b] = await models.embedImages(undefined, [images.red]);
  const warm = performance.now() - t;
  console.log(
    `first embed (worker start, stand-in generation, load): ${first.toFixed(0)} ms; warm image embed: ${warm.toFixed(1)} ms`,
  );
  assert.instance(a, Float32Array);
  assert.is(a.length, 768);
  assert.ok(Math.abs(norm(a) - 1) < 1e-5);
  assert.equal([...a], [...b], 'same image, same vector');
  const info = models.modelInfo();
  assert.equal(
    { name: info.name, dims: info.dims, dtype: info.dtype, standin: info.standin, arch: info.arch },
    { name: 'default', dims: 768, dtype: 'fp32', standin: true, arch: 'siglip' },
  );
  assert.match(info.id, /^default:standin-v\d+:fp32$/);
});

test('fast model clip-vit-b32: 512-d, normalised, its own vector space', async () => {
  const [img] = await models.embedImages('clip-vit-b32', [images.red]);
  const [txt] = await models.embedTexts('clip-vit-b32', ['a red thing']);
  assert.is(img.length, 512);
  assert.is(txt.length, 512);
  assert.ok(Math.abs(norm(txt) - 1) < 1e-5);
  assert.ok(dot(img, txt) > 0.9);
  const [l14] = await models.embedImages('clip-vit-l14', [images.red]);
  const [def] = await models.embedImages('default', [images.red]);
  assert.ok(dot(l14, def) < 0.5, 'two 768-d models do not share a space');
});

test("'a red thing' is nearer a red image than a blue one; each image is nearest its own colour word", async () => {
  const vectors = await models.embedImages(
    'default',
    COLOUR_NAMES.map((c) => images[c]),
  );
  const words = await models.embedTexts('default', COLOUR_NAMES);
  const [redThing] = await models.embedTexts('default', ['a red thing']);
  const red = vectors[0];
  const blue = vectors[2];
  assert.ok(dot(redThing, red) > dot(redThing, blue) + 0.5);
  vectors.forEach((v, i) => {
    const sims = words.map((w) => dot(v, w));
    const best = sims.indexOf(Math.max(...sims));
    assert.is(
      COLOUR_NAMES[best],
      COLOUR_NAMES[i],
      `${COLOUR_NAMES[i]} image: ${sims.map((s) => s.toFixed(2)).join(' ')}`,
    );
  });
});

test('the dominant colour wins, whatever the encoding', async () => {
  const [words, [mostlyBlue], [jpegYellow]] = await Promise.all([
    models.embedTexts('clip-vit-b32', ['red', 'blue', 'yellow']),
    models.embedImages('clip-vit-b32', [await mostly('blue', 'red')]),
    models.embedImages('clip-vit-b32', [await solid('yellow', { format: 'jpeg', width: 640, height: 480 })]),
  ]);
  assert.ok(dot(mostlyBlue, words[1]) > dot(mostlyBlue, words[0]));
  assert.ok(dot(jpegYellow, words[2]) > 0.9);
});

test('default captioner (Florence-2 shape) names the colour', async () => {
  const out = await models.caption([images.red, await mostly('green', 'black')]);
  assert.equal(out, [
    { text: 'a photo of a red thing', model: 'florence-2-base' },
    { text: 'a photo of a green thing', model: 'florence-2-base' },
  ]);
});

test('vit-gpt2 captioner: batched generation', async () => {
  const out = await models.caption([images.red, images.blue, images.white, images.black], undefined, {
    model: 'vit-gpt2',
  });
  assert.equal(
    out.map((c) => c.text),
    ['a photo of a red thing', 'a photo of a blue thing', 'a photo of a white thing', 'a photo of a black thing'],
  );
  assert.ok(out.every((c) => c.model === 'vit-gpt2'));
});

test('caption prompts: Florence-2 task tokens accepted, free-form prompts need a prompt model', async () => {
  const [c] = await models.caption([images.yellow], '<CAPTION>');
  assert.equal(c, { text: 'a photo of a yellow thing', model: 'florence-2-base' });
  const [ocr] = await models.caption([images.yellow], '<OCR>', { model: 'vit-gpt2' });
  assert.is(ocr.model, 'vit-gpt2');
  await rejects(models.caption([images.red], 'how many cats?'), 'unavailable', /prompt-following/);
  await rejects(
    models.caption([images.red], 'how many cats?', { model: 'vit-gpt2' }),
    'invalid_input',
    /cannot follow a prompt/,
  );
  await rejects(models.caption([images.red], '<OD>', { model: 'florence-2-base' }), 'invalid_input', /takes only/);
});

test('zeroShot scores labels with the embedder', async () => {
  const scores = await models.zeroShot(images.green, ['red', 'green', 'blue']);
  assert.is(scores[0].label, 'green');
  assert.ok(Math.abs(scores.reduce((s, x) => s + x.score, 0) - 1) < 1e-6);
  assert.ok(scores[0].similarity > scores[1].similarity);
});

test('unknown model → invalid_input; wrong task → invalid_input; no stand-in → unavailable', async () => {
  await rejects(models.embedImages('no-such-model', [images.red]), 'invalid_input', /unknown model "no-such-model"/);
  await rejects(models.embedTexts('vit-gpt2', ['x']), 'invalid_input', /caption model/);
  assert.throws(
    () => models.modelInfo('nope'),
    (e: unknown) => e instanceof DomainError && e.code === 'invalid_input',
  );
  await rejects(models.caption([images.red], 'hi', { model: 'smolvlm-256m-instruct' }), 'unavailable', /no stand-in/);
  await rejects(models.embedTexts(null, []), 'invalid_input');
});

test('undecodable bytes → unprocessable, and only that request fails when batched with others', async () => {
  const junk = Buffer.from('definitely not an image');
  const [bad, good] = await Promise.allSettled([
    models.embedImages(null, [junk]),
    models.embedImages(null, [images.red]),
    models.embedImages(null, [images.blue]),
  ]);
  assert.is(bad.status, 'rejected');
  assert.is(((bad as PromiseRejectedResult).reason as DomainError).code, 'unprocessable');
  assert.is(good.status, 'fulfilled');
});

test('loadedModels: the default text tower is pinned; parts are listed once', () => {
  const loaded = models.loadedModels();
  const text = loaded.find((m) => m.name === 'default' && m.part === 'text');
  assert.ok(text?.pinned);
  assert.ok(loaded.some((m) => m.name === 'florence-2-base' && m.part === 'generate'));
  assert.is(new Set(loaded.map((m) => `${m.name}:${m.part}`)).size, loaded.length);
  assert.ok(loaded.every((m) => m.device === 'cpu' && m.bytes > 0));
});

test('warmUp loads both towers of an embedder ahead of use', async () => {
  await models.warmUp(['clip-vit-l14']);
  const parts = models
    .loadedModels()
    .filter((m) => m.name === 'clip-vit-l14')
    .map((m) => m.part)
    .sort();
  assert.equal(parts, ['text', 'vision']);
});

test('per-call worker overhead for a warm text embed', async () => {
  const n = 30;
  const t = performance.now();
  for (let i = 0; i < n; i++) await models.embedTexts('default', ['a red thing']);
  const ms = (performance.now() - t) / n;
  console.log(`warm text embed round trip: ${ms.toFixed(2)} ms/call`);
  assert.ok(ms < 100);
});

test.run();
