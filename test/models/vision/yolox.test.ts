/**
 * YOLOX object detector: letterbox, grid decoding and NMS units; the tiny
 * stand-in through the real loader; the real YOLOX-Nano (from ../shared,
 * read in place, never copied) on real photos.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { letterbox, letterboxGeometry, packPlanar } from '../../../src/models/vision/letterbox.js';
import { iou, nms } from '../../../src/models/vision/nms.js';
import { STANDIN_CELL, writeYoloxStandin, yoloxStandinFiles } from '../../../src/models/standins/vision/yolox.js';
import type { Detection, RawImage } from '../../../src/models/vision/types.js';
import { COCO_CLASSES } from '../../../src/models/vision/cocoClasses.js';
import {
  defaultYoloxInputSize,
  loadYoloxDetector,
  modelNameFromPath,
  postprocessYolox,
  yoloxGrid,
  type YoloxDetector,
} from '../../../src/models/vision/yolox.js';
import { sharedPath } from '../../helpers/skip.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lumen-yolox-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

/** An image of `background` with one filled rectangle, encoded as PNG (or raw RGB). */
async function rectImage(
  size: { width: number; height: number },
  rect: { left: number; top: number; width: number; height: number },
  colours: { background: [number, number, number]; fill: [number, number, number] },
): Promise<{ png: Buffer; raw: RawImage }> {
  const { width, height } = size;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = x >= rect.left && x < rect.left + rect.width && y >= rect.top && y < rect.top + rect.height;
      data.set(inside ? colours.fill : colours.background, (y * width + x) * 3);
    }
  }
  const raw: RawImage = { data, width, height, channels: 3 };
  const png = await sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  return { png, raw };
}

function assertInside(d: Detection, width: number, height: number, what: string): void {
  assert.is(d.polygon.length, 4, `${what}: 4 points`);
  for (const p of d.polygon) {
    assert.ok(
      p.x >= 0 && p.x <= width && p.y >= 0 && p.y <= height,
      `${what}: point ${p.x},${p.y} outside ${width}×${height}`,
    );
  }
  const { x, y, width: w, height: h } = d.box;
  assert.ok(w >= 1 && h >= 1, `${what}: box ${w}×${h} too small`);
  assert.ok(x >= 0 && y >= 0 && x + w <= width + 0.01 && y + h <= height + 0.01, `${what}: box outside the frame`);
  // Clockwise from top-left: TL, TR, BR, BL, matching the box.
  const [tl, tr, br, bl] = d.polygon;
  assert.equal([tl.x, tl.y, tr.y, bl.x], [x, y, y, x], `${what}: polygon starts at the box's top-left`);
  assert.ok(
    Math.abs(tr.x - (x + w)) < 0.02 && Math.abs(br.y - (y + h)) < 0.02 && br.x === tr.x && bl.y === br.y,
    `${what}: polygon = box corners`,
  );
  assert.ok(d.score > 0 && d.score <= 1, `${what}: score ${d.score}`);
}

// ---- letterbox ---------------------------------------------------------------

test('letterbox geometry: fit inside keeping the aspect ratio', () => {
  assert.equal(letterboxGeometry(640, 480, 416, 416), { scale: 0.65, width: 416, height: 312 });
  assert.equal(letterboxGeometry(480, 640, 416, 416), { scale: 0.65, width: 312, height: 416 });
  assert.equal(letterboxGeometry(208, 104, 416, 416), { scale: 2, width: 416, height: 208 }); // small images are enlarged
  const thin = letterboxGeometry(1, 5000, 640, 640);
  assert.equal([thin.width, thin.height], [1, 640]); // never zero pixels
  assert.throws(() => letterboxGeometry(0, 10, 416, 416), /no pixels/);
});

test('packPlanar: BGR planes, top-left, pad 114 elsewhere; grey is replicated', () => {
  // 2×1 image: red, then (10, 20, 30).
  const px = Uint8Array.from([255, 0, 0, 10, 20, 30]);
  const t = new Float32Array(3 * 3 * 2).fill(-1);
  packPlanar(px, 2, 1, 3, t, 3, 2, { pad: 114, order: 'bgr' });
  // plane 0 = B, 1 = G, 2 = R; each plane 3 wide × 2 high.
  assert.equal(Array.from(t.subarray(0, 6)), [0, 30, 114, 114, 114, 114]);
  assert.equal(Array.from(t.subarray(6, 12)), [0, 20, 114, 114, 114, 114]);
  assert.equal(Array.from(t.subarray(12, 18)), [255, 10, 114, 114, 114, 114]);
  const rgb = new Float32Array(18);
  packPlanar(px, 2, 1, 3, rgb, 3, 2, { pad: 0, order: 'rgb' });
  assert.equal(Array.from(rgb.subarray(0, 2)), [255, 10]);
  const grey = new Float32Array(3);
  packPlanar(Uint8Array.from([77]), 1, 1, 1, grey, 1, 1, { pad: 114, order: 'bgr' });
  assert.equal(Array.from(grey), [77, 77, 77]);
  assert.throws(() => packPlanar(px, 4, 1, 3, t, 3, 2, { pad: 114, order: 'bgr' }), /does not fit/);
});

test('letterbox: raw and encoded input agree; EXIF orientation applied; bad raw input rejected', async () => {
  const { png, raw } = await rectImage(
    { width: 64, height: 32 },
    { left: 0, top: 0, width: 32, height: 32 },
    { background: [0, 0, 255], fill: [255, 0, 0] },
  );
  const a = await letterbox(raw, 32, 32);
  const b = await letterbox(png, 32, 32);
  assert.equal([a.scale, a.width, a.height, a.sourceWidth, a.sourceHeight], [0.5, 32, 16, 64, 32]);
  assert.equal([b.scale, b.width, b.height, b.sourceWidth, b.sourceHeight], [0.5, 32, 16, 64, 32]);
  const plane = 32 * 32;
  // Pixel (4, 4) is red: B plane 0, R plane 255; pixel (28, 4) blue; row 20 is padding.
  for (const l of [a, b]) {
    assert.equal([l.tensor[4 * 32 + 4], l.tensor[2 * plane + 4 * 32 + 4]], [0, 255]);
    assert.equal([l.tensor[4 * 32 + 28], l.tensor[2 * plane + 4 * 32 + 28]], [255, 0]);
    assert.equal(
      [l.tensor[20 * 32 + 5], l.tensor[plane + 20 * 32 + 5], l.tensor[2 * plane + 20 * 32 + 5]],
      [114, 114, 114],
    );
  }
  // An image stored 64×32 with EXIF orientation 6 (rotate 90° clockwise) is 32×64 as displayed.
  const rotated = await sharp(raw.data, { raw: { width: 64, height: 32, channels: 3 } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
  const r = await letterbox(rotated, 32, 32);
  assert.equal([r.sourceWidth, r.sourceHeight, r.width, r.height], [32, 64, 16, 32]);
  // Same size as the input: used as is, no resampling; a reused tensor is filled in place.
  const out = new Float32Array(3 * 64 * 64);
  const same = await letterbox(raw, 64, 64, { pad: 114, order: 'bgr', out });
  assert.is(same.tensor, out);
  assert.is(same.tensor[2 * 64 * 64 + 0], 255);
  let threw = false;
  try {
    await letterbox({ ...raw, data: raw.data.subarray(10) }, 32, 32);
  } catch (err) {
    threw = /too short/.test((err as Error).message);
  }
  assert.ok(threw, 'short raw data is rejected');
});

// ---- NMS and decoding ------------------------------------------------------------

test('iou and per-class NMS', () => {
  const boxes = Float32Array.from([
    0,
    0,
    10,
    10, // 0: A
    1,
    1,
    11,
    11, // 1: overlaps A (IoU 0.68)
    0,
    0,
    10,
    10, // 2: same as A, other class
    20,
    20,
    30,
    30, // 3: apart
    0,
    0,
    10,
    5, // 4: half of A (IoU 0.5)
  ]);
  assert.is(iou(boxes, 0, 0), 1);
  assert.ok(Math.abs(iou(boxes, 0, 1) - 81 / 119) < 1e-6);
  assert.is(iou(boxes, 0, 3), 0);
  const scores = [0.9, 0.8, 0.7, 0.6, 0.5];
  const classes = [0, 0, 1, 0, 0];
  assert.equal(nms(boxes, scores, { iouThreshold: 0.45, classes }), [0, 2, 3]);
  assert.equal(nms(boxes, scores, { iouThreshold: 0.45 }), [0, 3]); // class-agnostic
  assert.equal(nms(boxes, scores, { iouThreshold: 0.7, classes }), [0, 1, 2, 3, 4]); // 0.68 and 0.5 are under 0.7
  assert.equal(nms(boxes, scores, { iouThreshold: 0.45, classes, maxOutput: 2 }), [0, 2]);
  // Ties are broken by index: deterministic.
  assert.equal(nms(Float32Array.from([0, 0, 10, 10, 0, 0, 10, 10]), [0.5, 0.5], { iouThreshold: 0.5 }), [0]);
  assert.equal(nms(new Float32Array(0), [], { iouThreshold: 0.5 }), []);
});

test('YOLOX grid: strides 8/16/32 in output row order', () => {
  const g = yoloxGrid(416, 416);
  assert.is(g.count, 3549);
  assert.equal([g.gx[0], g.gy[0], g.stride[0]], [0, 0, 8]);
  assert.equal([g.gx[53], g.gy[53], g.stride[53]], [1, 1, 8]);
  assert.equal([g.gx[2704], g.gy[2704], g.stride[2704]], [0, 0, 16]);
  assert.equal([g.gx[3548], g.gy[3548], g.stride[3548]], [12, 12, 32]);
  assert.is(yoloxGrid(640, 640).count, 8400); // YOLOX-S/M/L
  const rect = yoloxGrid(640, 384);
  assert.is(rect.count, 80 * 48 + 40 * 24 + 20 * 12);
  assert.equal([rect.gx[79], rect.gy[79], rect.gx[80], rect.gy[80]], [79, 0, 0, 1]);
  assert.throws(() => yoloxGrid(400, 416), /multiple of stride/);
  assert.is(defaultYoloxInputSize('yolox-nano'), 416);
  assert.is(defaultYoloxInputSize('yolox-tiny'), 416);
  assert.is(defaultYoloxInputSize('yolox-s'), 640);
  assert.is(modelNameFromPath('/m/yolox_s.onnx'), 'yolox-s');
});

test('postprocess: decode, threshold, per-class NMS, map back, clamp', () => {
  // A 64×64 input: stride 8 rows 0–63 (8 per grid row), stride 16 rows 64–79 (4 per row), stride 32 rows 80–83.
  const grid = yoloxGrid(64, 64);
  const labels = ['cat', 'dog'];
  const K = 7;
  const out = new Float32Array(grid.count * K);
  const put = (row: number, v: number[]) => out.set(v, row * K);
  // The source image is 128×64 at scale 0.5: it fills the top half of the input, the bottom half is padding.
  // Row 9 (s 8, gx 1, gy 1): centre (1.5·8, 1.5·8) = (12, 12), size e^0·8 = 8 → [8,8]–[16,16] → /0.5 → [16,16]–[32,32].
  put(9, [0.5, 0.5, 0, 0, 0.9, 0.8, 0.1]); // cat 0.72
  // Row 10 (gx 2, gy 1): [16,8]–[24,16] → [32,16]–[48,32].
  put(10, [0.5, 0.5, 0, 0, 0.5, 0.1, 0.9]); // dog 0.45
  // Row 64 (s 16, gx 0, gy 0): centre (8, 8), size 16 → [0,0]–[32,32]; IoU 0.25 with row 9 → kept.
  put(64, [0.5, 0.5, 0, 0, 0.6, 0.7, 0]); // cat 0.42
  // Row 0 (s 8, gx 0, gy 0): centre (−4, −4), size e^ln2·8 = 16 → [−12,−12]–[4,4] → [−24,−24]–[8,8] → clamped [0,0]–[8,8].
  put(0, [-0.5, -0.5, Math.log(2), Math.log(2), 0.7, 0, 1]); // dog 0.7
  // Row 8 (gx 0, gy 1): objectness under the threshold.
  put(8, [0.5, 0.5, 0, 0, 0.2, 1, 0]);
  // Row 80 (s 32, gx 0, gy 0): high objectness, weak classes: 0.9 × 0.3 = 0.27 < 0.3.
  put(80, [0.5, 0.5, 0, 0, 0.9, 0.3, 0.2]);
  // Row 83 (s 32, gx 1, gy 1): [32,32]–[64,64], all in the padding → below the image → dropped.
  put(83, [0.5, 0.5, 0, 0, 0.9, 0.9, 0]);
  const base = {
    grid,
    labels,
    scale: 0.5,
    imageWidth: 128,
    imageHeight: 64,
    scoreThreshold: 0.3,
    nmsIou: 0.45,
    maxDetections: 10,
  };
  const brief = (ds: Detection[]) =>
    ds.map((d) => [d.label, Math.round(d.score * 1000) / 1000, d.box.x, d.box.y, d.box.width, d.box.height]);
  const dets = postprocessYolox(out, base);
  assert.equal(brief(dets), [
    ['cat', 0.72, 16, 16, 16, 16],
    ['dog', 0.7, 0, 0, 8, 8],
    ['dog', 0.45, 32, 16, 16, 16],
    ['cat', 0.42, 0, 0, 32, 32],
  ]);
  for (const d of dets) assertInside(d, 128, 64, d.label);
  // Row 17 (gx 1, gy 2): centre (12, 12.4): IoU ≈ 0.9 with row 9. As a cat (0.68 < 0.72) it is suppressed; as a dog it is kept.
  const dup = out.slice();
  dup.set([0.5, -0.45, 0, 0, 0.85, 0.8, 0.1], 17 * K);
  assert.is(postprocessYolox(dup, base).length, 4, 'same-class duplicate suppressed');
  dup.set([0.5, -0.45, 0, 0, 0.85, 0.1, 0.8], 17 * K);
  assert.is(postprocessYolox(dup, base).length, 5, 'other class kept');
  assert.equal(brief(postprocessYolox(out, { ...base, maxDetections: 1 })), [['cat', 0.72, 16, 16, 16, 16]]);
  assert.is(postprocessYolox(out, { ...base, scoreThreshold: 0.5 }).length, 2);
  assert.equal(postprocessYolox(new Float32Array(grid.count * K), base), []);
  assert.throws(() => postprocessYolox(out.subarray(7), base), /expected 84×7/);
});

// ---- stand-in through the real loader -----------------------------------------------

test('stand-in: real names and shapes, loads through loadYoloxDetector, one box over the red region', async () => {
  const t = performance.now();
  const files = yoloxStandinFiles();
  const ms = performance.now() - t;
  assert.equal([...files.keys()], ['yolox_nano.onnx', 'coco_classes.txt']);
  const modelPath = path.join(tmp, 'yolox_nano.onnx');
  writeYoloxStandin(modelPath);
  assert.ok(statSync(modelPath).size < 64 * 1024, 'tiny');
  assert.ok(ms < 1000, `generated in ${ms.toFixed(1)} ms`);

  const det = await loadYoloxDetector({ modelPath });
  try {
    assert.match(det.modelId, /^yolox-nano:[0-9a-f]{12}$/);
    assert.equal([det.inputWidth, det.inputHeight], [416, 416]); // read from the model's fixed input
    // 640×480, red square at (200, 120), 160×160: letterbox scale 0.65, mask cells of 8 px → ±8/0.65 px.
    const rect = { left: 200, top: 120, width: 160, height: 160 };
    const { png, raw } = await rectImage({ width: 640, height: 480 }, rect, {
      background: [40, 120, 200],
      fill: [230, 20, 20],
    });
    const found = await det.detect(png);
    assert.is(found.length, 1);
    const [d] = found;
    assert.is(d.label, 'stop sign');
    assert.ok(Math.abs(d.score - 0.9) < 1e-6);
    const tol = STANDIN_CELL / 0.65 + 0.5;
    for (const [got, want] of [
      [d.box.x, rect.left],
      [d.box.y, rect.top],
      [d.box.x + d.box.width, rect.left + rect.width],
      [d.box.y + d.box.height, rect.top + rect.height],
    ]) {
      assert.ok(Math.abs(got - want) <= tol, `edge ${got} vs ${want}`);
    }
    assertInside(d, 640, 480, 'stand-in');
    // Raw RGB input: the same answer.
    assert.equal(await det.detect(raw), found);
    // No red: nothing.
    const { png: green } = await rectImage(
      { width: 300, height: 200 },
      { left: 0, top: 0, width: 0, height: 0 },
      { background: [40, 220, 20], fill: [0, 0, 0] },
    );
    assert.equal(await det.detect(green), []);
    // minScore above its 0.9 hides it.
    assert.equal(await det.detect(png, { minScore: 0.95 }), []);
    // A red region at the image corner: clamped inside the frame.
    const corner = await rectImage(
      { width: 200, height: 300 },
      { left: 150, top: 250, width: 50, height: 50 },
      { background: [0, 0, 0], fill: [255, 0, 0] },
    );
    const [c] = await det.detect(corner.png);
    assertInside(c, 200, 300, 'corner');
    assert.ok(c.box.x + c.box.width > 190 && c.box.y + c.box.height > 290, 'reaches the bottom-right corner');
  } finally {
    await det.close();
  }
  // Other sizes and classes; a fixed input that contradicts inputSize is an error.
  const p640 = path.join(tmp, 'yolox_s.onnx');
  writeYoloxStandin(p640, { inputSize: 640, classIndex: COCO_CLASSES.indexOf('apple') });
  const s = await loadYoloxDetector({ modelPath: p640 });
  try {
    assert.equal([s.inputWidth, s.modelId.split(':')[0]], [640, 'yolox-s']);
    const { png } = await rectImage(
      { width: 100, height: 100 },
      { left: 10, top: 10, width: 30, height: 30 },
      { background: [255, 255, 255], fill: [220, 0, 0] },
    );
    assert.equal(
      (await s.detect(png)).map((d) => d.label),
      ['apple'],
    );
  } finally {
    await s.close();
  }
  let message = '';
  try {
    await loadYoloxDetector({ modelPath: p640, inputSize: 416 });
  } catch (err) {
    message = (err as Error).message;
  }
  assert.match(message, /fixed 640×640 input/);
  // Wrong class count for the output: a clear error at load.
  const classes = path.join(tmp, 'ten.txt');
  writeFileSync(classes, Array.from({ length: 10 }, (_, i) => `c${i}`).join('\n'));
  message = '';
  try {
    await loadYoloxDetector({ modelPath: p640, classesPath: classes });
  } catch (err) {
    message = (err as Error).message;
  }
  assert.match(message, /10 classes/);
});

test('detector: concurrent calls, close waits for them, later calls reject', async () => {
  const modelPath = path.join(tmp, 'yolox_nano.onnx');
  writeYoloxStandin(modelPath);
  const det = await loadYoloxDetector({ modelPath });
  const { png } = await rectImage(
    { width: 320, height: 240 },
    { left: 40, top: 40, width: 80, height: 60 },
    { background: [0, 0, 0], fill: [255, 0, 0] },
  );
  const one = await det.detect(png);
  const many = Promise.all([det.detect(png), det.detect(png), det.detect(png), det.detect(png), det.detect(png)]);
  await det.close();
  for (const r of await many) assert.equal(r, one);
  let rejected = false;
  await det.detect(png).catch(() => (rejected = true));
  assert.ok(rejected);
  await det.close(); // idempotent
  assert.is(det.timings().images, 6);
});

// ---- the real YOLOX-Nano on real photos -------------------------------------------------

const nanoPath = sharedPath('models/yolox-nano/yolox_nano.onnx', 'real YOLOX-Nano tests');
const imagesDir = sharedPath('fixtures/images', 'real-photo detection tests');
const real = nanoPath && imagesDir ? { model: nanoPath, images: imagesDir } : null;
let nano: YoloxDetector | null = null;

async function realDetector(): Promise<YoloxDetector> {
  nano ??= await loadYoloxDetector({ modelPath: real!.model });
  return nano;
}
test.after(async () => {
  await nano?.close();
});

const photo = (name: string) => readFileSync(path.join(real!.images, name));
const labelsOf = (ds: Detection[]) => ds.map((d) => d.label);
const count = (ds: Detection[], label: string) => ds.filter((d) => d.label === label).length;

test('real YOLOX-Nano: model id, input size from the model', async () => {
  if (!real) return;
  const det = await realDetector();
  assert.match(det.modelId, /^yolox-nano:695e750a5d57$/); // sha256 695e750a…ab14 per ../shared/models/README.md
  assert.equal([det.inputWidth, det.inputHeight], [416, 416]);
});

test('real YOLOX-Nano: the bear photo yields a bear', async () => {
  if (!real) return;
  const ds = await (await realDetector()).detect(photo('coco_000000000285.jpg'));
  const bear = ds.find((d) => d.label === 'bear');
  assert.ok(bear, `labels: ${labelsOf(ds)}`);
  assert.ok(bear!.score > 0.5, `bear score ${bear!.score}`);
  // It fills most of the frame (640×640 close-up).
  assert.ok(bear!.box.width * bear!.box.height > 0.4 * 640 * 640, `bear box ${JSON.stringify(bear!.box)}`);
});

test('real YOLOX-Nano: the highway photo yields cars', async () => {
  if (!real) return;
  const ds = await (await realDetector()).detect(photo('coco_000000001532.jpg'));
  assert.ok(count(ds, 'car') >= 2, `labels: ${labelsOf(ds)}`);
  // The cars are on the road, in the lower half of the 640×480 frame.
  for (const car of ds.filter((d) => d.label === 'car'))
    assert.ok(car.box.y + car.box.height > 240, JSON.stringify(car.box));
});

test('real YOLOX-Nano: the tram photo yields a train (COCO has no tram class; the fixtures have no bus photo)', async () => {
  if (!real) return;
  const ds = await (await realDetector()).detect(photo('coco_000000006040.jpg'));
  assert.ok(
    ds.some((d) => d.label === 'train' && d.score > 0.5),
    `labels: ${labelsOf(ds)}`,
  );
});

test('real YOLOX-Nano: other photos (zebra, airplane, cat, apples, wine glasses)', async () => {
  if (!real) return;
  const det = await realDetector();
  const expect: [string, string][] = [
    ['coco_000000001818.jpg', 'zebra'],
    ['coco_000000005477.jpg', 'airplane'],
    ['coco_000000004795.jpg', 'cat'],
    ['coco_000000002149.jpg', 'apple'],
    ['coco_000000002157.jpg', 'wine glass'],
  ];
  for (const [file, label] of expect) {
    const ds = await det.detect(photo(file));
    assert.ok(
      ds.some((d) => d.label === label),
      `${file}: ${labelsOf(ds)}`,
    );
  }
});

test('real YOLOX-Nano: every photo — polygons inside the frame, sane boxes, best first, deterministic', async () => {
  if (!real) return;
  const det = await realDetector();
  const files = readdirSync(real.images)
    .filter((f) => /\.(jpe?g|png|tif)$/i.test(f))
    .sort();
  assert.ok(files.length >= 10);
  for (const file of files) {
    const bytes = photo(file);
    const meta = await sharp(bytes, { autoOrient: true }).metadata();
    const W = meta.autoOrient.width;
    const H = meta.autoOrient.height;
    const ds = await det.detect(bytes);
    assert.ok(ds.length <= 100, `${file}: ${ds.length}`);
    for (const d of ds) {
      assertInside(d, W, H, `${file} ${d.label}`);
      assert.ok(d.score >= 0.3, `${file}: score ${d.score} under the threshold`);
      assert.ok(COCO_CLASSES.includes(d.label), `${file}: label ${d.label}`);
    }
    assert.equal(
      ds.map((d) => d.score),
      [...ds.map((d) => d.score)].sort((a, b) => b - a),
      `${file}: best first`,
    );
    assert.equal(await det.detect(bytes), ds, `${file}: same answer twice`);
  }
});

test('real YOLOX-Nano: raw RGB input, classesPath, minScore and maxDetections', async () => {
  if (!real) return;
  const det = await realDetector();
  const bytes = photo('coco_000000001532.jpg');
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const fromRaw = await det.detect({ data, width: info.width, height: info.height, channels: 3 });
  const fromJpeg = await det.detect(bytes);
  assert.ok(count(fromRaw, 'car') >= 2, `raw: ${labelsOf(fromRaw)}`);
  // Same pixels, same resampling: the boxes agree closely.
  assert.ok(Math.abs(fromRaw.length - fromJpeg.length) <= 1);
  const top = (ds: Detection[]) => ds[0].box;
  assert.ok(Math.abs(top(fromRaw).x - top(fromJpeg).x) < 4 && Math.abs(top(fromRaw).width - top(fromJpeg).width) < 4);
  const many = await det.detect(bytes, { minScore: 0.05 });
  assert.ok(many.length > fromJpeg.length);
  assert.is((await det.detect(bytes, { maxDetections: 2 })).length, 2);
  // The shared class file (Darknet spelling: 'motorbike', 'sofa', …) read in place.
  const classesPath = sharedPath('models/yolox-nano/coco_classes.txt', 'class list test');
  if (classesPath) {
    const withFile = await loadYoloxDetector({ modelPath: real.model, classesPath });
    try {
      assert.is(withFile.labels.length, 80);
      assert.is(withFile.labels[3], 'motorbike');
      assert.equal(labelsOf(await withFile.detect(bytes)), labelsOf(fromJpeg));
    } finally {
      await withFile.close();
    }
  }
});

test('real YOLOX-Nano: time per stage on a 640×480 photo', async () => {
  if (!real) return;
  const det = await loadYoloxDetector({ modelPath: real.model });
  try {
    const bytes = photo('coco_000000001532.jpg');
    for (let i = 0; i < 3; i++) await det.detect(bytes);
    const a = det.timings();
    const n = 10;
    for (let i = 0; i < n; i++) await det.detect(bytes);
    const b = det.timings();
    const per = (k: 'preprocessMs' | 'inferenceMs' | 'postprocessMs') => (b[k] - a[k]) / n;
    console.log(
      `yolox-nano 640×480: preprocess ${per('preprocessMs').toFixed(1)} ms, session.run ${per('inferenceMs').toFixed(1)} ms, ` +
        `postprocess ${per('postprocessMs').toFixed(2)} ms per image`,
    );
    assert.ok(per('postprocessMs') < per('inferenceMs'), 'postprocessing is a small share');
  } finally {
    await det.close();
  }
});

test.run();
