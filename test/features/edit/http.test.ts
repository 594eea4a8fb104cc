/**
 * POST /api/ai/edit through the real server (MODEL_PROFILE=test: the matte and
 * upscale models are the generated stand-ins): both shapes and compat.md's
 * `result`, defaults, 400 and 422 cases, determinism, hosted model names, and
 * edits saved as versions of a library item.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeImage, startTestApp, type TestApp } from '../../helpers/testApp.js';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});
test.after(async () => {
  await app?.close();
});

/** A red square on a white background: the stand-in matte calls the square foreground. */
async function squareOnWhite(): Promise<Buffer> {
  const square = await sharp({ create: { width: 40, height: 40, channels: 3, background: { r: 220, g: 20, b: 20 } } })
    .png()
    .toBuffer();
  return sharp({ create: { width: 120, height: 80, channels: 3, background: { r: 255, g: 255, b: 255 } } })
    .composite([{ input: square, left: 40, top: 20 }])
    .png()
    .toBuffer();
}

const dataUri = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`;

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  assert.is(res.status, 200, `GET ${url}`);
  return Buffer.from(await res.arrayBuffer());
}

test('shape 1: defaults (jpg, quality 90), all fields, the file is served without a key', async () => {
  const image = dataUri(await squareOnWhite());
  const r = await app.request('POST', '/api/ai/edit', { body: { image, prompt: 'make it black and white' } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  const b = r.body;
  assert.type(b.edited_image, 'string');
  assert.type(b.original_image, 'string');
  assert.is(b.prompt, 'make it black and white');
  assert.type(b.processing_time, 'number');
  assert.ok(b.processing_time >= 0 && b.processing_time < 30);
  assert.is(b.result, b.edited_image, 'compat: result');
  assert.is(b.url, b.edited_image, 'shape 2 url as well');
  assert.is(b.shape, 1);
  assert.is(b.outputFormat, 'jpg');
  assert.is(b.quality, 90);
  assert.is(b.model, 'local-editor');
  assert.equal(
    b.operations.map((o: { op: string }) => o.op),
    ['grade'],
  );
  assert.ok(!('error' in b));
  const bytes = await download(b.edited_image);
  const meta = await sharp(bytes).metadata();
  assert.is(meta.format, 'jpeg');
  const { data } = await sharp(bytes).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  for (let i = 0; i < data.length; i += 3)
    if (data[i] !== data[i + 1] || data[i] !== data[i + 2]) assert.unreachable('not grey');
  // A data URI input gets a stored copy as original_image.
  const original = await download(b.original_image);
  assert.ok(original.equals(await squareOnWhite()));
});

test('shape 1: output_format png/webp and quality; a URL input is its own original_image', async () => {
  const up = await app.upload(
    { datasetId: await app.collection('Edit inputs') },
    { bytes: await makeImage({ width: 90, height: 60 }), filename: 'a.jpg' },
  );
  const media = (await app.request('GET', `/api/media/${up.body.mediaId}`)).body.media;
  const png = await app.request('POST', '/api/ai/edit', {
    body: { image: media.blob, prompt: 'rotate 90 degrees', output_format: 'png' },
  });
  assert.is(png.status, 200, JSON.stringify(png.body));
  assert.is(png.body.original_image, media.blob);
  assert.is(png.body.quality, null, 'png is lossless');
  const pngMeta = await sharp(await download(png.body.edited_image)).metadata();
  assert.equal([pngMeta.format, pngMeta.width, pngMeta.height], ['png', 60, 90], 'rotation swaps width and height');
  const webp = await app.request('POST', '/api/ai/edit', {
    body: { image: media.blob, prompt: 'sepia', output_format: 'webp', quality: 40 },
  });
  assert.is(webp.status, 200);
  assert.is((await sharp(await download(webp.body.edited_image)).metadata()).format, 'webp');
  const q90 = await app.request('POST', '/api/ai/edit', {
    body: { image: media.blob, prompt: 'sepia', output_format: 'webp' },
  });
  assert.is.not(q90.body.edited_image, webp.body.edited_image, 'quality changes the bytes');
});

test('shape 2: aspectRatio, outputFormat, a hosted model name runs on the local editor', async () => {
  const image = dataUri(await squareOnWhite());
  const r = await app.request('POST', '/api/ai/edit', {
    body: { image, prompt: 'make it brighter', aspectRatio: '1:1', outputFormat: 'png', model: 'flux-kontext-max' },
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.shape, 2);
  assert.type(r.body.url, 'string');
  assert.is(r.body.result, r.body.url);
  assert.is(r.body.model, 'local-editor');
  assert.is(r.body.requestedModel, 'flux-kontext-max');
  const meta = await sharp(await download(r.body.url)).metadata();
  assert.equal([meta.format, meta.width, meta.height], ['png', 80, 80]);
  const keep = await app.request('POST', '/api/ai/edit', {
    body: { image, prompt: 'make it brighter', aspectRatio: 'match_input_image', model: 'google/nano-banana' },
  });
  assert.is(keep.status, 200);
  assert.equal([keep.body.width, keep.body.height, keep.body.outputFormat], [120, 80, 'jpg']);
});

test('same image and prompt give the same bytes (and the same URL)', async () => {
  const image = dataUri(await squareOnWhite());
  const body = { image, prompt: 'make it look vintage, square crop and add a 5px black border' };
  const a = await app.request('POST', '/api/ai/edit', { body });
  const b = await app.request('POST', '/api/ai/edit', { body });
  assert.is(a.status, 200);
  assert.is(a.body.edited_image, b.body.edited_image);
  assert.ok((await download(a.body.edited_image)).equals(await download(b.body.edited_image)));
  assert.equal(
    a.body.operations.map((o: { op: string }) => o.op),
    ['crop', 'grade', 'border'],
  );
});

test('400: out-of-range and missing fields', async () => {
  const image = dataUri(await squareOnWhite());
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ image, prompt: 'sepia', quality: 0 }, /quality/],
    [{ image, prompt: 'sepia', quality: 101 }, /quality/],
    [{ image, prompt: 'sepia', output_format: 'gif' }, /output_format/],
    [{ image, prompt: 'sepia', aspectRatio: '2:1' }, /aspectRatio/],
    [{ image, prompt: 'sepia', outputFormat: 'webp' }, /outputFormat/],
    [{ image }, /prompt/],
    [{ image, prompt: '   ' }, /prompt/],
    [{ prompt: 'sepia' }, /image/],
    [{ image: 'not a url', prompt: 'sepia' }, /image/],
  ];
  for (const [body, message] of cases) {
    const r = await app.request('POST', '/api/ai/edit', { body });
    assert.is(r.status, 400, `${JSON.stringify(body).slice(-60)} → ${r.status} ${JSON.stringify(r.body)}`);
    assert.is(r.body.error, 'Bad Request');
    assert.match(r.body.message, message);
  }
});

test('without a generation model, an instruction the local editor cannot do is 422 listing what it can', async () => {
  // The operator has no generation model: the role is switched off in catalog.local.json.
  const modelsDir = mkdtempSync(path.join(os.tmpdir(), 'edit-nogen-'));
  writeFileSync(
    path.join(modelsDir, 'catalog.local.json'),
    JSON.stringify({ version: 1, roles: { test: { generate: null } } }),
  );
  const bare = await startTestApp({ modelsDir });
  try {
    const image = dataUri(await squareOnWhite());
    const r = await bare.request('POST', '/api/ai/edit', { body: { image, prompt: 'add a dragon' } });
    assert.is(r.status, 422);
    assert.is(r.body.error, 'Unprocessable Entity');
    assert.match(r.body.message, /add a dragon/);
    for (const ability of ['rotate', 'crop', 'black and white', 'background', 'border', 'upscale'])
      assert.match(r.body.message, ability);
    const mixed = await bare.request('POST', '/api/ai/edit', {
      body: { image, prompt: 'make it brighter and put a hat on the cat' },
    });
    assert.is(mixed.status, 422, 'part of the prompt cannot be done: nothing is done');
    assert.match(mixed.body.message, /hat on the cat/);
  } finally {
    await bare.close();
    rmSync(modelsDir, { recursive: true, force: true });
  }
});

test('with a generation model installed, it takes what the local editor cannot do, and says so', async () => {
  const image = dataUri(await squareOnWhite()); // 120×80: 3:2
  const r = await app.request('POST', '/api/ai/edit', {
    body: { image, prompt: 'add a red dragon and make it black and white' },
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.model, 'janus-pro-1b');
  assert.is(r.body.operations[0].op, 'generate');
  assert.match(r.body.operations[0].description, /cannot change the photo itself/);
  assert.match(r.body.operations[0].prompt, /add a red dragon/);
  assert.ok(
    r.body.operations.some((o: { op: string }) => o.op === 'grade'),
    'the understood part (black and white) is applied to the generated picture',
  );
  const { data, info } = await sharp(await download(r.body.url))
    .raw()
    .toBuffer({ resolveWithObject: true });
  assert.ok(Math.abs(info.width / info.height - 1.5) < 0.05, `the input's ratio: ${info.width}×${info.height}`);
  if (info.channels >= 3)
    for (let i = 0; i < data.length; i += info.channels * 97)
      assert.ok(Math.abs(data[i] - data[i + 1]) <= 2, 'black and white');
  const again = await app.request('POST', '/api/ai/edit', {
    body: { image, prompt: 'add a red dragon and make it black and white' },
  });
  assert.is(again.body.url, r.body.url, 'same image and prompt: same output');
});

test('background: removed through the matte stand-in (PNG with alpha); replaced with a colour', async () => {
  const image = dataUri(await squareOnWhite());
  const r = await app.request('POST', '/api/ai/edit', { body: { image, prompt: 'remove the background' } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.outputFormat, 'png', 'jpg default switched to png for transparency');
  assert.type(r.body.models.matte, 'string');
  const { data, info } = await sharp(await download(r.body.edited_image))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  assert.is(info.channels, 4);
  assert.ok(data[(40 * 120 + 60) * 4 + 3] > 200, 'square opaque');
  assert.ok(data[(5 * 120 + 5) * 4 + 3] < 30, 'background transparent');
  const blue = await app.request('POST', '/api/ai/edit', {
    body: { image, prompt: 'replace the background with blue', output_format: 'png' },
  });
  assert.is(blue.status, 200);
  const px = await sharp(await download(blue.body.edited_image))
    .raw()
    .toBuffer();
  assert.ok(px[(5 * 120 + 5) * 3 + 2] > 180 && px[(5 * 120 + 5) * 3] < 80, 'background is blue');
});

test('upscale 2x through the upscale stand-in', async () => {
  const image = dataUri(await squareOnWhite());
  const r = await app.request('POST', '/api/ai/edit', { body: { image, prompt: 'upscale 2x', output_format: 'png' } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal([r.body.width, r.body.height], [240, 160]);
  assert.type(r.body.models.upscale, 'string');
});

test('saveAsVersion: a derived version of the item; versions routes; delete removes both', async () => {
  const ds = await app.collection('Versions by edit');
  const up = await app.upload(
    { datasetId: ds, name: 'cat.jpg' },
    {
      bytes: await sharp(await makeImage({ width: 80, height: 60 }))
        .withExif({ IFD2: { DateTimeOriginal: '2012:12:12 12:12:12' } })
        .jpeg()
        .toBuffer(),
      filename: 'cat.jpg',
    },
  );
  const orig = (await app.request('GET', `/api/media/${up.body.mediaId}`)).body.media;
  assert.is(orig.takenAt, '2012-12-12T12:12:12.000Z');
  const r = await app.request('POST', '/api/ai/edit', {
    body: { image: orig.blob, prompt: 'make it black and white', saveAsVersion: true },
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  const v = r.body.version;
  assert.ok(v && v.id !== orig.id);
  assert.is(v.rootMediaId, orig.id);
  assert.is(v.isCurrentVersion, true);
  assert.is(v.totalVersions, 2);
  assert.is(v.name, 'cat (edited).jpg');
  assert.is(v.width, 80);
  assert.is(v.takenAt, orig.takenAt, 'the edit keeps the moment it was made from');
  assert.equal(v.exif.capture, orig.exif.capture, 'and what ExifTool read from it (camera, place, zone)');

  const versions = await app.request('GET', `/api/media/${orig.id}/versions`);
  assert.equal(
    versions.body.versions.map((m: { id: string }) => m.id),
    [orig.id, v.id],
  );
  const list = await app.request('GET', `/api/dataset/${ds}/media`);
  assert.is(list.body.media.length, 1);
  assert.is(list.body.media[0].id, v.id, 'the edit is the current version');
  assert.is(list.body.media[0].totalVersions, 2);

  const sel = await app.request('PATCH', `/api/media/${orig.id}/select-version`);
  assert.is(sel.status, 200);
  assert.is((await app.request('GET', `/api/dataset/${ds}/media`)).body.media[0].id, orig.id);

  const del = await app.request('DELETE', `/api/media/${orig.id}`);
  assert.equal(del.body, { id: orig.id, deletedCount: 2 });
  assert.is((await app.request('GET', `/api/media/${v.id}`)).status, 404);
});

test('saveAsVersion: 400 without a library file URL, 404 for an item that is gone', async () => {
  const image = dataUri(await squareOnWhite());
  const r = await app.request('POST', '/api/ai/edit', { body: { image, prompt: 'sepia', saveAsVersion: true } });
  assert.is(r.status, 400);
  assert.match(r.body.message, /saveAsVersion/);
  const out = await app.request('POST', '/api/ai/edit', { body: { image, prompt: 'sepia' } });
  const fromOutput = await app.request('POST', '/api/ai/edit', {
    body: { image: out.body.edited_image, prompt: 'sepia', saveAsVersion: true },
  });
  assert.is(fromOutput.status, 400, 'an edit output is not a library item');
  const ds = await app.collection('Gone');
  const up = await app.upload(
    { datasetId: ds },
    { bytes: await makeImage({ color: { r: 1, g: 2, b: 3 } }), filename: 'gone.jpg' },
  );
  const media = (await app.request('GET', `/api/media/${up.body.mediaId}`)).body.media;
  await app.request('DELETE', `/api/media/${media.id}`);
  const gone = await app.request('POST', '/api/ai/edit', {
    body: { image: media.blob, prompt: 'sepia', saveAsVersion: true },
  });
  assert.is(gone.status, 404);
});

test('the route is in /api/openapi.json', async () => {
  const doc = await app.request('GET', '/api/openapi.json', { key: null });
  assert.ok(doc.body.paths['/api/ai/edit']?.post);
});

test.run();
