/**
 * The image-to-image models (upscale, matte) in the test profile: the real
 * transformers.js loading code in the model worker, against the Swin2SR
 * stand-in (nearest-neighbour ×2, so results can be checked exactly) and the
 * MODNet / BiRefNet stand-ins (alpha = distance from the border colour).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../src/platform/errors.js';
import { createVisionModels } from '../../src/models/visionModels.js';
import type { VisionModels } from '../../src/models/types.js';
import { TILE } from '../../src/models/engine/upscale.js';
import { memoryLogger, tempModelsDir, testConfig } from './helpers.js';

const tmp = tempModelsDir();
let models: VisionModels;

test.before(() => {
  models = createVisionModels(testConfig(tmp.dir), memoryLogger());
});
test.after(async () => {
  await models.close();
  tmp.cleanup();
});

async function rejects(promise: Promise<unknown>, code: string, pattern?: RegExp): Promise<void> {
  try {
    await promise;
  } catch (err) {
    assert.instance(err, DomainError, (err as Error).message);
    assert.is((err as DomainError).code, code, (err as Error).message);
    if (pattern) assert.match((err as Error).message, pattern);
    return;
  }
  assert.unreachable(`expected a ${code} rejection`);
}

/** A deterministic RGB pattern (PNG): every pixel differs from its neighbours, so misplaced tiles show. */
async function pattern(width: number, height: number): Promise<{ png: Buffer; raw: Buffer }> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = (x * 7 + y * 3) & 255;
      raw[i + 1] = (x * 13 + y * 29) & 255;
      raw[i + 2] = (x ^ y) & 255;
    }
  }
  return {
    png: await sharp(raw, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer(),
    raw,
  };
}

/** A red square on a white background. */
async function redSquare(
  width: number,
  height: number,
  square: { left: number; top: number; size: number },
): Promise<Buffer> {
  const red = await sharp({
    create: { width: square.size, height: square.size, channels: 3, background: { r: 220, g: 20, b: 25 } },
  })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
    .composite([{ input: red, left: square.left, top: square.top }])
    .png()
    .toBuffer();
}

async function rawOf(png: Buffer): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** A mask's one channel (sharp's raw output would expand grey to three). */
async function maskOf(png: Buffer): Promise<Buffer> {
  return sharp(png).extractChannel(0).raw().toBuffer();
}

test('upscale doubles width and height and keeps the picture exactly (tiles stitched without seams)', async () => {
  const width = 600;
  const height = 400; // 3 × 2 tiles of at most 256 px
  assert.ok(width > 2 * TILE && height > TILE);
  const { png, raw } = await pattern(width, height);
  let t = performance.now();
  const out = await models.upscale(png);
  const first = performance.now() - t;
  assert.ok(out);
  assert.is(out.model, 'swin2sr-x2');
  assert.equal([out.width, out.height], [1200, 800]);
  const img = await rawOf(out.image);
  assert.equal([img.width, img.height, img.channels], [1200, 800, 3]);
  // The stand-in repeats each pixel into a 2×2 block: every output pixel must equal its source.
  let wrong = 0;
  for (let y = 0; y < 800; y++) {
    for (let x = 0; x < 1200; x++) {
      const o = (y * 1200 + x) * 3;
      const i = ((y >> 1) * width + (x >> 1)) * 3;
      if (img.data[o] !== raw[i] || img.data[o + 1] !== raw[i + 1] || img.data[o + 2] !== raw[i + 2]) wrong++;
    }
  }
  assert.is(wrong, 0, `${wrong} output pixels differ from their source pixel`);
  t = performance.now();
  await models.upscale(png);
  console.log(
    `upscale 600×400 → 1200×800 (stand-in, 6 tiles): first ${first.toFixed(0)} ms (worker start, load), warm ${(performance.now() - t).toFixed(0)} ms`,
  );
  assert.ok(models.loadedModels().some((m) => m.name === 'swin2sr-x2' && m.part === 'model'));
});

test('upscale keeps the mean colour, handles odd and tiny sizes, applies EXIF orientation and keeps alpha', async () => {
  const photo = await redSquare(37, 23, { left: 5, top: 5, size: 10 });
  const out = (await models.upscale(photo))!;
  assert.equal([out.width, out.height], [74, 46]);
  const [inStats, outStats] = await Promise.all([sharp(photo).stats(), sharp(out.image).stats()]);
  for (let c = 0; c < 3; c++)
    assert.ok(Math.abs(inStats.channels[c].mean - outStats.channels[c].mean) < 1, `channel ${c} mean`);

  const tiny = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  const small = (await models.upscale(tiny))!;
  assert.equal([small.width, small.height], [2, 2]);
  assert.equal([...(await rawOf(small.image)).data.subarray(0, 3)], [0x33, 0x66, 0xcc]);

  // EXIF orientation 6 (rotate 90° clockwise): a 40×20 JPEG is upright 20×40.
  const rotated = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#808080' } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
  const up = (await models.upscale(rotated))!;
  assert.equal([up.width, up.height], [40, 80]);

  const translucent = await sharp({
    create: { width: 30, height: 20, channels: 4, background: { r: 0, g: 128, b: 0, alpha: 0.5 } },
  })
    .png()
    .toBuffer();
  const withAlpha = await rawOf((await models.upscale(translucent))!.image);
  assert.equal([withAlpha.width, withAlpha.height, withAlpha.channels], [60, 40, 4]);
  assert.ok(Math.abs(withAlpha.data[3] - 128) <= 1, `alpha ${withAlpha.data[3]}`);
  assert.equal([...withAlpha.data.subarray(0, 3)], [0, 128, 0], 'translucent colour kept, not flattened on white');
});

test('matte of a red square on white: high alpha inside, low outside, same size as the input, one 8-bit channel', async () => {
  const image = await redSquare(300, 200, { left: 100, top: 50, size: 100 });
  let t = performance.now();
  const out = await models.matte(image);
  const first = performance.now() - t;
  assert.ok(out);
  assert.is(out.model, 'modnet');
  assert.equal([out.width, out.height], [300, 200]);
  const meta = await sharp(out.mask).metadata();
  assert.equal([meta.format, meta.channels, meta.depth, meta.width, meta.height], ['png', 1, 'uchar', 300, 200]);
  const data = await maskOf(out.mask);
  const at = (x: number, y: number) => data[y * 300 + x];
  for (const [x, y] of [
    [150, 100],
    [110, 60],
    [190, 140],
  ])
    assert.ok(at(x, y) > 240, `inside (${x},${y}): ${at(x, y)}`);
  for (const [x, y] of [
    [5, 5],
    [295, 195],
    [50, 100],
    [250, 100],
    [150, 20],
    [150, 180],
  ])
    assert.ok(at(x, y) < 15, `outside (${x},${y}): ${at(x, y)}`);
  t = performance.now();
  await models.matte(image);
  console.log(
    `matte 300×200 (stand-in): first ${first.toFixed(0)} ms (load), warm ${(performance.now() - t).toFixed(0)} ms`,
  );
});

test('matte follows EXIF orientation: the mask has the upright size and the square where the viewer sees it', async () => {
  // Stored 200×100 with the square at the left; orientation 6 shows it 100×200 with the square at the top.
  const stored = await redSquare(200, 100, { left: 10, top: 25, size: 50 });
  const jpeg = await sharp(stored).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer();
  const out = (await models.matte(jpeg))!;
  assert.equal([out.width, out.height], [100, 200]);
  const data = await maskOf(out.mask);
  assert.ok(data[35 * 100 + 50] > 200, 'square at the top once upright');
  assert.ok(data[170 * 100 + 50] < 30, 'background at the bottom');
});

test('inputs are checked on the main thread: empty, undecodable, too large to upscale', async () => {
  await rejects(models.upscale(Buffer.alloc(0)), 'invalid_input');
  await rejects(models.matte(Buffer.from('not an image')), 'unprocessable', /cannot decode/);
  await rejects(models.upscale(Buffer.from('not an image')), 'unprocessable', /cannot decode/);
  const capped = createVisionModels(testConfig(tmp.dir), memoryLogger(), { upscaleMaxPixels: 100 * 100 });
  try {
    await rejects(
      capped.upscale(await redSquare(101, 100, { left: 0, top: 0, size: 10 })),
      'invalid_input',
      /too large to upscale: 101×100/,
    );
  } finally {
    await capped.close();
  }
});

test('a BiRefNet-shaped model (logits, input_image) serves removeBackground when the local catalog says so', async () => {
  const dir = tempModelsDir();
  try {
    writeFileSync(
      path.join(dir.dir, 'catalog.local.json'),
      JSON.stringify({ roles: { test: { removeBackground: 'birefnet-lite' } } }),
    );
    const other = createVisionModels(testConfig(dir.dir), memoryLogger());
    try {
      assert.is(other.roles().removeBackground, 'birefnet-lite');
      const out = (await other.matte(await redSquare(160, 120, { left: 40, top: 30, size: 80 })))!;
      assert.is(out.model, 'birefnet-lite');
      assert.equal([out.width, out.height], [160, 120]);
      const data = await maskOf(out.mask);
      assert.ok(data[60 * 160 + 80] > 240, `inside ${data[60 * 160 + 80]}`);
      assert.ok(data[5 * 160 + 5] < 15, `outside ${data[5 * 160 + 5]}`);
    } finally {
      await other.close();
    }
  } finally {
    dir.cleanup();
  }
});

test('no model installed (default profile, empty models folder): upscale and matte answer null', async () => {
  const empty = tempModelsDir();
  const real = createVisionModels(testConfig(empty.dir, { MODEL_PROFILE: 'default' }), memoryLogger());
  try {
    assert.is(real.roles().upscale, 'swin2sr-x2');
    assert.is(real.roles().removeBackground, 'modnet');
    const image = await redSquare(40, 30, { left: 10, top: 10, size: 10 });
    assert.is(await real.upscale(image), null);
    assert.is(await real.matte(image), null);
    assert.is(real.modelInfo('swin2sr-x2').installed, false);
  } finally {
    await real.close();
    empty.cleanup();
  }
});

test.run();
