/**
 * Pixel checks of the edit operations (src/features/edit/apply.ts) on small generated
 * images, with fake models where a model is involved: a matte that calls
 * bright pixels foreground, an upscaler that doubles with nearest-neighbour,
 * a detector that finds the bright square. The real stand-ins are driven
 * through HTTP in http.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { applyPlan, type ApplyOptions } from '../../../src/features/edit/apply.js';
import { vignette } from '../../../src/features/edit/operations/colour.js';
import { parsePrompt } from '../../../src/features/edit/parse.js';
import type { EditOperation } from '../../../src/features/edit/types.js';
import type { Services } from '../../../src/features/kernel/services.js';
import { DomainError } from '../../../src/platform/errors.js';
import { createLogger } from '../../../src/platform/logger.js';

interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

async function pixels(bytes: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(bytes).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

const at = (p: Pixels, x: number, y: number) => [
  ...p.data.subarray((y * p.width + x) * p.channels, (y * p.width + x + 1) * p.channels),
];

function mean(p: Pixels): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < p.data.length; i += p.channels)
    for (let c = 0; c < Math.min(3, p.channels); c++, n++) sum += p.data[i + c];
  return sum / n;
}

function stdev(p: Pixels): number {
  const m = mean(p);
  let sum = 0;
  let n = 0;
  for (let i = 0; i < p.data.length; i += p.channels)
    for (let c = 0; c < Math.min(3, p.channels); c++, n++) sum += (p.data[i + c] - m) ** 2;
  return Math.sqrt(sum / n);
}

/**
 * 120×80 test photo: a red left half and a blue right half, a dark green band
 * along the top rows, and a white 30×30 "subject" centred at (60, 45).
 */
async function photo(format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const w = 120;
  const h = 80;
  const raw = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      let px = x < w / 2 ? [200, 40, 40] : [40, 60, 190];
      if (y < 10) px = [20, 90, 30];
      if (x >= 45 && x < 75 && y >= 30 && y < 60) px = [250, 250, 250];
      raw.set(px, i);
    }
  }
  const img = sharp(raw, { raw: { width: w, height: h, channels: 3 } });
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 95 }).toBuffer();
}

/** Stripes for sharpen/blur checks. */
async function stripes(): Promise<Buffer> {
  const w = 64;
  const h = 64;
  const raw = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) raw.fill(Math.floor(x / 4) % 2 ? 220 : 30, (y * w + x) * 3, (y * w + x + 1) * 3);
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

interface FakeOptions {
  matte?: boolean;
  upscale?: boolean;
  detect?: boolean;
}

/** Just the parts of Services the edit operations use. */
function services(opts: FakeOptions = {}): Services {
  const models = {
    roles: () => ({ detect: opts.detect ? 'fake-detector' : null }),
    async detect(_role: string, image: Buffer) {
      const { info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
      // The white square of photo(), in the coordinates of the (possibly smaller) image sent.
      const sx = info.width / 120;
      const sy = info.height / 80;
      return {
        model: 'fake-detector',
        modelId: 'fake',
        detections: [
          { label: 'thing', score: 0.9, box: { x: 45 * sx, y: 30 * sy, width: 30 * sx, height: 30 * sy }, polygon: [] },
        ],
      };
    },
    async matte(image: Buffer) {
      if (!opts.matte) return null;
      const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const mask = Buffer.alloc(info.width * info.height);
      for (let i = 0; i < mask.length; i++) mask[i] = data[i * 3] > 230 && data[i * 3 + 1] > 230 ? 255 : 0;
      const png = await sharp(mask, { raw: { width: info.width, height: info.height, channels: 1 } })
        .png()
        .toBuffer();
      return { mask: png, model: 'fake-matte', width: info.width, height: info.height };
    },
    async upscale(image: Buffer) {
      if (!opts.upscale) return null;
      const meta = await sharp(image).metadata();
      const out = await sharp(image)
        .resize(meta.width! * 2, meta.height! * 2, { kernel: 'nearest' })
        .png()
        .toBuffer();
      return { image: out, model: 'fake-sr', width: meta.width! * 2, height: meta.height! * 2 };
    },
  };
  return { config: { maxImagePixels: 120_000_000 }, models, logger: createLogger('silent') } as unknown as Services;
}

const JPG: ApplyOptions = { format: null, defaultFormat: 'jpg', quality: 90 };

async function edit(prompt: string, opts: FakeOptions = {}, apply: ApplyOptions = JPG, input?: Buffer) {
  const plan = parsePrompt(prompt);
  assert.equal(plan.unrecognised, [], `"${prompt}" fully understood`);
  const result = await applyPlan(services(opts), input ?? (await photo()), plan.operations, apply);
  return { ...result, px: await pixels(result.bytes) };
}

test('black and white: every pixel has equal channels', async () => {
  const r = await edit('make it black and white');
  assert.is(r.format, 'jpg');
  assert.is(r.px.channels, 3);
  for (let i = 0; i < r.px.data.length; i += 3) {
    if (r.px.data[i] !== r.px.data[i + 1] || r.px.data[i] !== r.px.data[i + 2])
      assert.unreachable(`pixel ${i / 3} is not grey`);
  }
  const meta = await sharp(r.bytes).metadata();
  assert.is(meta.channels, 1, 'stored as a one-channel grey JPEG');
});

test('square crop is square; 16:9 crop has that ratio', async () => {
  const sq = await edit('square crop');
  assert.is(sq.width, 80);
  assert.is(sq.height, 80);
  assert.is(sq.px.width, sq.px.height);
  const wide = await edit('crop to 16:9');
  assert.is(wide.width, 120);
  assert.is(wide.height, 68);
});

test('rotate 90 degrees swaps width and height; the top-left corner goes to the top-right', async () => {
  const r = await edit('rotate 90 degrees', {}, { ...JPG, format: 'png' });
  assert.is(r.width, 80);
  assert.is(r.height, 120);
  // Clockwise: the original's bottom-left (red) is now top-left, the original's top row (green band) is now the right edge.
  const topLeft = at(r.px, 0, 0);
  assert.ok(topLeft[0] > 150 && topLeft[2] < 100, `top-left is red: ${topLeft}`);
  const rightEdge = at(r.px, 79, 5);
  assert.ok(rightEdge[1] > rightEdge[0] && rightEdge[1] > rightEdge[2], `right edge is the green band: ${rightEdge}`);
  const left = await edit('rotate left', {}, { ...JPG, format: 'png' });
  assert.is(left.width, 80);
  const l = at(left.px, 0, 119);
  assert.ok(l[1] > l[0], `counter-clockwise: the green band is on the left: ${l}`);
  const ud = await edit('turn it upside down', {}, { ...JPG, format: 'png' });
  assert.is(ud.width, 120);
  const bottom = at(ud.px, 60, 75);
  assert.ok(bottom[1] > bottom[0], 'upside down: the green band is at the bottom');
});

test('mirror: left and right swap', async () => {
  const r = await edit('mirror the image', {}, { ...JPG, format: 'png' });
  assert.ok(at(r.px, 5, 70)[2] > 150, 'blue now on the left');
  const v = await edit('flip vertically', {}, { ...JPG, format: 'png' });
  assert.ok(at(v.px, 5, 75)[1] > at(v.px, 5, 75)[0], 'green band now at the bottom');
});

test('a 10px red border adds 20 pixels each way in red', async () => {
  const r = await edit('add a 10px red border', {}, { ...JPG, format: 'png' });
  assert.is(r.width, 140);
  assert.is(r.height, 100);
  assert.equal(at(r.px, 0, 0), [220, 30, 30]);
  assert.equal(at(r.px, 139, 99), [220, 30, 30]);
  const pct = await edit('add a border');
  assert.is(pct.width, 120 + 2 * 4, 'default border: 3% of the longer side a side');
});

test('brighter raises the mean, darker lowers it; contrast widens the spread; saturation', async () => {
  const base = await pixels(await photo());
  const bright = await edit('make it 20% brighter', {}, { ...JPG, format: 'png' });
  const dark = await edit('much darker', {}, { ...JPG, format: 'png' });
  assert.ok(mean(bright.px) > mean(base) + 5, `brighter: ${mean(bright.px)} > ${mean(base)}`);
  assert.ok(mean(dark.px) < mean(base) - 10, `darker: ${mean(dark.px)} < ${mean(base)}`);
  const contrast = await edit('increase the contrast', {}, { ...JPG, format: 'png' });
  assert.ok(stdev(contrast.px) > stdev(base), 'more contrast, larger spread');
  const muted = await edit('less saturated', {}, { ...JPG, format: 'png' });
  const red = at(muted.px, 5, 70);
  assert.ok(red[0] - red[2] < 160, `less saturated red: ${red}`);
});

test('one adjust with brightness and contrast applies both', async () => {
  const input = await photo();
  const base = await pixels(input);
  const both = await applyPlan(services(), input, [{ op: 'adjust', brightness: 1.2, contrast: 1.3 }], {
    ...JPG,
    format: 'png',
  });
  const bright = await applyPlan(services(), input, [{ op: 'adjust', brightness: 1.2 }], { ...JPG, format: 'png' });
  const px = await pixels(both.bytes);
  assert.ok(mean(px) > mean(base), 'brighter');
  assert.ok(stdev(px) > stdev(await pixels(bright.bytes)), 'and more contrast than brightness alone');
});

test('sepia, vintage, warm, cool, invert, auto', async () => {
  const sepia = await edit('sepia', {}, { ...JPG, format: 'png' });
  const white = at(sepia.px, 60, 45);
  assert.ok(white[0] >= white[1] && white[1] >= white[2] && white[0] - white[2] > 20, `sepia white is warm: ${white}`);
  const vintage = await edit('make it look vintage', {}, { ...JPG, format: 'png' });
  assert.ok(at(vintage.px, 60, 45)[0] < 250, 'vintage fades the whites');
  assert.ok(mean({ ...vintage.px }) > 0);
  const warm = await edit('warmer', {}, { ...JPG, format: 'png' });
  const cool = await edit('cooler', {}, { ...JPG, format: 'png' });
  const w = at(warm.px, 60, 45);
  const c = at(cool.px, 60, 45);
  assert.ok(w[0] > w[2] && c[2] > c[0], `warm ${w}, cool ${c}`);
  const inv = await edit('invert the colours', {}, { ...JPG, format: 'png' });
  assert.equal(at(inv.px, 60, 45), [5, 5, 5]);
  const auto = await edit('auto enhance', {}, { ...JPG, format: 'png' });
  assert.is(auto.width, 120);
});

test('sharpen raises edge contrast, blur lowers it', async () => {
  const input = await stripes();
  const base = stdev(await pixels(input));
  const sharp1 = await edit('sharpen a lot', {}, { ...JPG, format: 'png' }, input);
  const blur = await edit('blur it', {}, { ...JPG, format: 'png' }, input);
  assert.ok(stdev(sharp1.px) > base, `sharpen: ${stdev(sharp1.px)} > ${base}`);
  assert.ok(stdev(blur.px) < base - 5, `blur: ${stdev(blur.px)} < ${base}`);
});

test('remove the background: alpha from the matte; PNG unless jpg was asked for', async () => {
  const r = await edit('remove the background', { matte: true });
  assert.is(r.format, 'png', 'default jpg switched to png to keep transparency');
  assert.ok(r.notes.some((n) => /PNG/.test(n)));
  assert.is(r.models.matte, 'fake-matte');
  assert.is(r.px.channels, 4);
  assert.is(at(r.px, 60, 45)[3], 255, 'subject opaque');
  assert.is(at(r.px, 5, 70)[3], 0, 'background transparent');
  const jpg = await edit('remove the background', { matte: true }, { ...JPG, format: 'jpg' });
  assert.is(jpg.format, 'jpg');
  assert.equal(
    at(jpg.px, 5, 70)
      .slice(0, 3)
      .map((v) => v > 245),
    [true, true, true],
    'flattened on white',
  );
  assert.ok(jpg.notes.some((n) => /white/.test(n)));
  const webp = await edit('remove the background and save as webp', { matte: true });
  assert.is(webp.format, 'webp');
  assert.is(webp.px.channels, 4);
});

test('replace the background with a colour; blur the background keeps the subject', async () => {
  const r = await edit('replace the background with blue', { matte: true }, { ...JPG, format: 'png' });
  assert.equal(at(r.px, 5, 70), [30, 90, 220]);
  assert.equal(at(r.px, 60, 45), [250, 250, 250]);
  const b = await edit('blur the background', { matte: true }, { ...JPG, format: 'png' });
  assert.equal(at(b.px, 60, 45), [250, 250, 250], 'subject sharp');
  assert.is.not(
    at(b.px, 58, 75).join(),
    at(await pixels(await photo()), 58, 75).join(),
    'background near the colour edge is blurred',
  );
});

test('background without a matting model: unavailable with the install hint', async () => {
  try {
    await edit('remove the background');
    assert.unreachable('should fail');
  } catch (err) {
    assert.instance(err, DomainError);
    assert.is((err as DomainError).code, 'unavailable');
    assert.match((err as DomainError).message, /npm run models -- fetch modnet/);
  }
});

test('upscale 2x: through the model when installed, lanczos3 otherwise (noted)', async () => {
  const m = await edit('upscale 2x', { upscale: true });
  assert.is(m.width, 240);
  assert.is(m.height, 160);
  assert.is(m.models.upscale, 'fake-sr');
  const l = await edit('upscale 2x');
  assert.is(l.width, 240);
  assert.is(l.models.upscale, undefined);
  assert.ok(l.notes.some((n) => /lanczos3/.test(n) && /swin2sr/.test(n)));
  const three = await edit('upscale 3x', { upscale: true });
  assert.is(three.width, 360, '×2 by the model then lanczos3 to ×3');
  const w = await edit('resize to 60px wide');
  assert.equal([w.width, w.height], [60, 40]);
  const exact = await edit('resize to 50x50');
  assert.equal([exact.width, exact.height], [50, 50]);
  const half = await edit('half size');
  assert.equal([half.width, half.height], [60, 40]);
});

test('crop to the subject: the detector box, padded; saliency without a detector', async () => {
  const r = await edit('crop to the main subject', { detect: true }, { ...JPG, format: 'png' });
  assert.equal([r.width, r.height], [36, 36], '30 px square plus 10% a side');
  assert.equal(at(r.px, 18, 18), [250, 250, 250]);
  assert.is(r.models.subject, 'fake-detector');
  const s = await edit('crop to the subject in a square', {}, { ...JPG, format: 'png' });
  assert.equal([s.width, s.height], [80, 80]);
  assert.ok(s.notes.some((n) => /saliency/.test(n)));
});

test('several operations in one prompt, in stage order; same input and prompt → same bytes', async () => {
  const prompt = 'add a border, rotate 90 degrees, then make it black and white';
  const a = await edit(prompt);
  const b = await edit(prompt);
  assert.equal(
    a.applied.map((o: EditOperation) => o.op),
    ['rotate', 'grade', 'border'],
  );
  assert.equal([a.width, a.height], [80 + 8, 120 + 8], 'border added after the rotation');
  assert.ok(a.bytes.equals(b.bytes), 'deterministic bytes');
  const w1 = await edit('vintage, square crop', {}, { format: 'webp', defaultFormat: 'jpg', quality: 80 });
  const w2 = await edit('vintage, square crop', {}, { format: 'webp', defaultFormat: 'jpg', quality: 80 });
  assert.ok(w1.bytes.equals(w2.bytes));
});

test('EXIF orientation is applied before editing; metadata is stripped', async () => {
  const tagged = await sharp(await photo('jpeg'))
    .withMetadata({ orientation: 6 })
    .jpeg()
    .toBuffer();
  const r = await edit('make it brighter', {}, JPG, tagged);
  assert.equal([r.width, r.height], [80, 120], 'orientation 6 displays rotated');
  const meta = await sharp(r.bytes).metadata();
  assert.is(meta.orientation, undefined);
  assert.is(meta.exif, undefined);
});

/** Pseudo-random bytes (a fixed LCG: the same every run). */
function noise(length: number, seed = 3): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16) & 255;
  return out;
}

test('vignette in sharp: within 2 levels of the exact formula (half a level darker on average), alpha kept', async () => {
  for (const [width, height, channels] of [
    [1, 1, 3],
    [120, 80, 3],
    [301, 203, 4],
    [1100, 37, 3],
  ] as const) {
    const data = noise(width * height * channels);
    const out = await vignette({ data, width, height, channels }, 0.35);
    assert.is(out.channels, channels);
    const cx = (width - 1) / 2;
    const cy = (height - 1) / 2;
    const r2max = cx * cx + cy * cy || 1;
    let max = 0;
    let sum = 0;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const f = 1 - (0.35 * ((x - cx) ** 2 + (y - cy) ** 2)) / r2max;
        const i = (y * width + x) * channels;
        for (let c = 0; c < 3; c++) {
          const d = out.data[i + c] - Math.round(data[i + c] * f);
          max = Math.max(max, Math.abs(d));
          sum += d;
        }
        if (channels === 4) assert.is(out.data[i + 3], data[i + 3], 'alpha unchanged');
      }
    }
    assert.ok(max <= 2, `${width}×${height}: off by ${max} levels`);
    assert.ok(
      Math.abs(sum / (width * height * 3)) <= 0.6,
      `${width}×${height}: mean difference ${sum / (width * height * 3)}`,
    );
  }
});

test('a transparent image: colour steps keep its alpha, a grey result is stored grey with alpha', async () => {
  const width = 90;
  const height = 60;
  const rgba = noise(width * height * 4, 11);
  const input = await sharp(rgba, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
  const r = await edit('make it black and white', {}, JPG, input);
  assert.is(r.format, 'png', 'transparency kept: png');
  assert.is(r.px.channels, 4);
  for (let i = 0; i < width * height; i++) {
    const p = r.px.data.subarray(i * 4, i * 4 + 4);
    if (p[3] !== rgba[i * 4 + 3]) assert.unreachable(`pixel ${i}: alpha ${p[3]}, was ${rgba[i * 4 + 3]}`);
    if (p[3] > 0 && (p[0] !== p[1] || p[0] !== p[2])) assert.unreachable(`pixel ${i} is not grey`);
  }
  assert.is((await sharp(r.bytes).metadata()).channels, 2, 'stored as grey + alpha');
});

test('grey check: one coloured pixel the JavaScript sample skips still makes a colour image', async () => {
  const width = 200;
  const height = 100;
  const raw = Buffer.alloc(width * height * 3, 128);
  raw.set([200, 40, 40], 1 * 3); // pixel 1: the sample takes every 4th pixel from 0
  const input = await sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  const r = await edit('convert to png', {}, JPG, input);
  assert.is((await sharp(r.bytes).metadata()).channels, 3, 'not stored grey');
  assert.equal(at(r.px, 1, 0), [200, 40, 40]);
  const grey = await edit(
    'convert to png',
    {},
    JPG,
    await sharp(Buffer.alloc(width * height * 3, 90), { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer(),
  );
  assert.is((await sharp(grey.bytes).metadata()).channels, 1, 'an all-grey image is stored grey');
});

test('background replace and blur with a soft matte: rgb·m + other·(1 − m) within one level', async () => {
  const width = 64;
  const height = 48;
  const rgb = noise(width * height * 3, 5);
  const input = await sharp(rgb, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  // A horizontal ramp matte: 0 at the left edge to 255 at the right.
  const matte = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) matte[y * width + x] = Math.round((255 * x) / (width - 1));
  const s = services();
  (s.models as unknown as { matte: unknown }).matte = async () => ({
    mask: await sharp(matte, { raw: { width, height, channels: 1 } })
      .png()
      .toBuffer(),
    model: 'ramp-matte',
    width,
    height,
  });
  const replaced = await pixels(
    (
      await applyPlan(s, input, [{ op: 'background', action: 'replace', color: { r: 30, g: 90, b: 220 } }], {
        ...JPG,
        format: 'png',
      })
    ).bytes,
  );
  const blurred = await pixels(
    (await applyPlan(s, input, [{ op: 'background', action: 'blur', sigma: 5 }], { ...JPG, format: 'png' })).bytes,
  );
  // The blur's sigma: 5 for a 1000 px image is under the 1 px minimum on a 64 px one.
  const copy = await sharp(rgb, { raw: { width, height, channels: 3 } })
    .blur(1)
    .raw()
    .toBuffer();
  const colour = [30, 90, 220];
  let max = 0;
  let maxBlur = 0;
  for (let i = 0; i < width * height; i++) {
    const m = matte[i] / 255;
    for (let c = 0; c < 3; c++) {
      const k = i * 3 + c;
      max = Math.max(max, Math.abs(replaced.data[k] - Math.round(rgb[k] * m + colour[c] * (1 - m))));
      maxBlur = Math.max(maxBlur, Math.abs(blurred.data[k] - Math.round(rgb[k] * m + copy[k] * (1 - m))));
    }
  }
  assert.ok(maxBlur <= 1, `blur off by ${maxBlur}`);
  assert.ok(max <= 1, `replace off by ${max}`);
});

test.run();
