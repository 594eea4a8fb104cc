/**
 * Face detection with UltraFace (Ultra-Light-Fast-Generic-Face-Detector-1MB,
 * RFB variant, 320×240, MIT) through onnxruntime-node.
 *
 *   input  [1,3,240,320]  RGB, (p − 127) / 128, NCHW, the image resized to
 *                         320×240 without keeping its aspect ratio (as the
 *                         upstream reference code does)
 *   scores [1,4420,2]     background / face probabilities
 *   boxes  [1,4420,4]     corner form x1,y1,x2,y2, normalised 0–1 (the graph
 *                         already decodes the priors)
 *
 * Post-processing: keep rows with a face score above the threshold (0.7),
 * scale to image pixels, non-maximum suppression (IoU 0.3).
 *
 * Small faces. The smallest prior is 10 px of the 320×240 input, so in one
 * pass a 720×480 photo loses faces under ~25 px and a 4000×3000 one faces
 * under ~150 px: a group photo loses many of its faces. When the image is at
 * least 1.5× the model input (`tiling: 'auto'`), a second pass runs the model
 * on overlapping tiles (20% overlap) of one downscaled copy of the image, each
 * tile covering max(1, f/2)× the model input where f = image ÷ model size, so
 * the tiles see the image about twice as finely as the full pass (at most 36
 * tiles; bigger tiles beyond that). Merging:
 *   - a tile's box touching one of the tile's inner edges is dropped (the face
 *     is cut there and lies whole in the neighbouring tile, thanks to the
 *     overlap);
 *   - a tile's box of 40 px or more in full-pass input pixels is dropped:
 *     such faces are the full pass's job, and a tile's take on a big face is
 *     often a part of it (and big false positives — a bear's head, a bowl —
 *     grow in number when looked at closer);
 *   - the rest joins the full pass's boxes in NMS, which also drops a box
 *     lying mostly (60%) inside a better-scored one.
 * Twice as fine, not more: finer tiles find the last few faces of a group
 * photo but start finding faces where there are none (the fixture counts
 * behind this choice: docs/measurements/models.md).
 */
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import type { Detection, Detector, DetectorTimings, Point, RawImage } from './types.js';
import { toRawImage } from './rawImage.js';
import { openModel } from './session.js';

/** Catalog name of the model; the detector's modelId is `<name>:<first 12 hex of the file's sha256>`. */
export const ULTRAFACE_MODEL_NAME = 'ultraface-rfb-320';

const INPUT_W = 320;
const INPUT_H = 240;

export type TilingMode = 'auto' | 'off' | 'always';

export interface UltraFaceOptions {
  modelPath: string;
  /** Model name for modelId (default `ultraface-rfb-320`); the id adds the file's sha256 prefix. */
  modelName?: string;
  /** Face score kept (default 0.7); `detect(…, { minScore })` overrides it per call. */
  scoreThreshold?: number;
  /** IoU above which the lower-scored of two boxes is dropped (default 0.3). */
  nmsIou?: number;
  /**
   * The tiled pass for small faces: `auto` (default) when the image is at
   * least `tileMinFactor`× the model input along one side; `always`; `off`.
   */
  tiling?: TilingMode;
  /** Image side ÷ model side from which `auto` tiles (default 1.5: from 480×360 up). */
  tileMinFactor?: number;
  /**
   * The tiled pass looks at the image this many times finer than the full
   * pass (default 2), i.e. each tile spans max(1, fullFactor / tileZoom)×
   * the model input.
   */
  tileZoom?: number;
  /** Overlap of neighbouring tiles, a fraction of the tile (default 0.2). */
  tileOverlap?: number;
  /** Most tiles per image; the tiles grow to stay under it (default 36). */
  maxTiles?: number;
  /** onnxruntime intra-op threads (default: onnxruntime's choice). */
  threads?: number;
}

export interface FaceDetectOptions {
  minScore?: number;
  maxDetections?: number;
  /** Per call override of the detector's tiling mode. */
  tiling?: TilingMode;
}

export interface UltraFaceDetector extends Detector {
  detect(image: Buffer | RawImage, opts?: FaceDetectOptions): Promise<Detection[]>;
  timings(): DetectorTimings & { modelRuns: number };
}

/** A rectangle of the image in pixels (integers). */
export interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

interface Candidate {
  score: number;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export { toRawImage };

/** Crops `region` out of a raw image and resizes it to width × height (aspect ratio not kept), as packed RGB. */
export async function cropResize(img: RawImage, region: Region, width: number, height: number): Promise<Buffer> {
  let s = sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } });
  const whole = region.left === 0 && region.top === 0 && region.width === img.width && region.height === img.height;
  if (!whole) s = s.extract(region);
  return s.resize(width, height, { fit: 'fill', kernel: 'linear' }).raw().toBuffer();
}

function iou(a: Candidate, b: Candidate): number {
  const iw = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const ih = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  const union = (a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter;
  return union > 0 ? inter / union : 0;
}

/** Intersection over the smaller box's area. */
function overlapOfSmaller(a: Candidate, b: Candidate): number {
  const iw = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const ih = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (iw <= 0 || ih <= 0) return 0;
  const smaller = Math.min((a.x2 - a.x1) * (a.y2 - a.y1), (b.x2 - b.x1) * (b.y2 - b.y1));
  return smaller > 0 ? (iw * ih) / smaller : 0;
}

/**
 * Greedy NMS, best score first (ties broken by position so the result is
 * deterministic). `containment`, when given, also drops a box whose
 * intersection with a kept one covers that fraction of the smaller box.
 */
export function nmsCandidates<T extends Candidate>(cands: T[], iouThreshold: number, containment?: number): T[] {
  const sorted = [...cands].sort((a, b) => b.score - a.score || a.y1 - b.y1 || a.x1 - b.x1);
  const kept: T[] = [];
  for (const c of sorted) {
    if (
      kept.some((k) => iou(k, c) > iouThreshold || (containment !== undefined && overlapOfSmaller(k, c) > containment))
    )
      continue;
    kept.push(c);
  }
  return kept;
}

/** Start offsets of `count` windows of `size` covering `total` evenly (first at 0, last ending at total). */
function spread(total: number, size: number, count: number): number[] {
  if (count <= 1) return [0];
  const step = (total - size) / (count - 1);
  return Array.from({ length: count }, (_, i) => Math.round(i * step));
}

/**
 * The tiles of the small-face pass, or [] when it would not help. Exported
 * for tests and the benchmark.
 */
export function planTiles(
  width: number,
  height: number,
  opts: { mode?: TilingMode; minFactor?: number; zoom?: number; overlap?: number; maxTiles?: number } = {},
): Region[] {
  const mode = opts.mode ?? 'auto';
  if (mode === 'off') return [];
  const factor = Math.max(width / INPUT_W, height / INPUT_H);
  if (mode === 'auto' && factor < (opts.minFactor ?? 1.5)) return [];
  const overlap = Math.min(0.5, Math.max(0, opts.overlap ?? 0.2));
  const maxTiles = Math.max(1, opts.maxTiles ?? 36);
  let scale = Math.max(1, factor / (opts.zoom ?? 2));
  for (;;) {
    const tw = Math.min(width, Math.round(INPUT_W * scale));
    const th = Math.min(height, Math.round(INPUT_H * scale));
    const cols = tw >= width ? 1 : Math.ceil((width - tw) / (tw * (1 - overlap))) + 1;
    const rows = th >= height ? 1 : Math.ceil((height - th) / (th * (1 - overlap))) + 1;
    if (cols * rows <= maxTiles || (cols === 1 && rows === 1)) {
      if (cols === 1 && rows === 1) return []; // one tile = the full pass again
      const tiles: Region[] = [];
      for (const top of spread(height, th, rows))
        for (const left of spread(width, tw, cols)) tiles.push({ left, top, width: tw, height: th });
      return tiles;
    }
    scale *= 1.15;
  }
}

export async function loadUltraFaceDetector(opts: UltraFaceOptions): Promise<UltraFaceDetector> {
  const { modelId, session } = await openModel(opts.modelPath, opts.modelName ?? ULTRAFACE_MODEL_NAME, {
    threads: opts.threads,
  });
  const inputName = session.inputNames[0];
  if (!session.outputNames.includes('scores') || !session.outputNames.includes('boxes')) {
    throw new Error(
      `${opts.modelPath} is not an UltraFace model: outputs are ${session.outputNames.join(', ')} (want scores, boxes)`,
    );
  }
  const threshold = opts.scoreThreshold ?? 0.7;
  const nmsIou = opts.nmsIou ?? 0.3;
  const defaultTiling = opts.tiling ?? 'auto';
  const plane = INPUT_W * INPUT_H;
  const stats = { images: 0, modelRuns: 0, preprocessMs: 0, inferenceMs: 0, postprocessMs: 0 };
  let closed = false;

  /** One model run on a 320×240 packed-RGB input; boxes mapped onto `region` of the image. */
  async function run(rgb: Buffer, region: Region, minScore: number): Promise<Candidate[]> {
    let t = performance.now();
    const input = new Float32Array(3 * plane);
    for (let i = 0, p = 0; i < plane; i++, p += 3) {
      input[i] = (rgb[p] - 127) / 128;
      input[plane + i] = (rgb[p + 1] - 127) / 128;
      input[2 * plane + i] = (rgb[p + 2] - 127) / 128;
    }
    const tensor = new ort.Tensor('float32', input, [1, 3, INPUT_H, INPUT_W]);
    stats.preprocessMs += performance.now() - t;
    t = performance.now();
    const out = await session.run({ [inputName]: tensor });
    stats.inferenceMs += performance.now() - t;
    stats.modelRuns++;
    t = performance.now();
    const scores = out.scores.data as Float32Array;
    const boxes = out.boxes.data as Float32Array;
    const n = scores.length / 2;
    const found: Candidate[] = [];
    for (let i = 0; i < n; i++) {
      const score = scores[2 * i + 1];
      if (!(score > minScore)) continue;
      const x1 = region.left + boxes[4 * i] * region.width;
      const y1 = region.top + boxes[4 * i + 1] * region.height;
      const x2 = region.left + boxes[4 * i + 2] * region.width;
      const y2 = region.top + boxes[4 * i + 3] * region.height;
      if (x2 - x1 < 1 || y2 - y1 < 1) continue;
      found.push({ score, x1, y1, x2, y2 });
    }
    const kept = nmsCandidates(found, nmsIou);
    stats.postprocessMs += performance.now() - t;
    return kept;
  }

  /** The small-face pass: tiles planned on the image, cut from one downscaled copy of it. */
  async function tiledPass(img: RawImage, tiles: Region[], minScore: number): Promise<Candidate[]> {
    // Every tile has the same size; downscale the image once so that a tile becomes exactly 320×240.
    const sx = tiles[0].width / INPUT_W;
    const sy = tiles[0].height / INPUT_H;
    const lw = Math.max(INPUT_W, Math.round(img.width / sx));
    const lh = Math.max(INPUT_H, Math.round(img.height / sy));
    const t = performance.now();
    const level: RawImage =
      lw === img.width && lh === img.height
        ? img
        : {
            data: await cropResize(img, { left: 0, top: 0, width: img.width, height: img.height }, lw, lh),
            width: lw,
            height: lh,
            channels: 3,
          };
    stats.preprocessMs += performance.now() - t;
    const fx = img.width / lw;
    const fy = img.height / lh;
    // Faces at least this big (in full-pass input pixels) are the full pass's job; a tile's take on them is often a part.
    const bigFace = 40;
    const kept: Candidate[] = [];
    const rgb = Buffer.allocUnsafe(plane * 3);
    for (const tile of tiles) {
      const left = Math.min(lw - INPUT_W, Math.round(tile.left / fx));
      const top = Math.min(lh - INPUT_H, Math.round(tile.top / fy));
      const tc = performance.now();
      for (let y = 0; y < INPUT_H; y++) {
        const from = ((top + y) * lw + left) * 3;
        level.data.copy(rgb, y * INPUT_W * 3, from, from + INPUT_W * 3);
      }
      stats.preprocessMs += performance.now() - tc;
      const region: Region = { left: left * fx, top: top * fy, width: INPUT_W * fx, height: INPUT_H * fy };
      const edge = 0.01 * INPUT_W * fx;
      for (const c of await run(rgb, region, minScore)) {
        // A face cut by an inner tile edge is whole in the neighbouring tile (or the full pass).
        const cut =
          (left > 0 && c.x1 <= region.left + edge) ||
          (top > 0 && c.y1 <= region.top + edge) ||
          (left + INPUT_W < lw && c.x2 >= region.left + region.width - edge) ||
          (top + INPUT_H < lh && c.y2 >= region.top + region.height - edge);
        const big =
          ((c.x2 - c.x1) * INPUT_W) / img.width >= bigFace || ((c.y2 - c.y1) * INPUT_H) / img.height >= bigFace;
        if (!cut && !big) kept.push(c);
      }
    }
    return kept;
  }

  return {
    modelId,
    async detect(image, detectOpts = {}) {
      if (closed) throw new Error(`face detector ${modelId} is closed`);
      let t = performance.now();
      const img = await toRawImage(image);
      const minScore = detectOpts.minScore ?? threshold;
      const full: Region = { left: 0, top: 0, width: img.width, height: img.height };
      const small = await cropResize(img, full, INPUT_W, INPUT_H);
      stats.preprocessMs += performance.now() - t;
      let cands = await run(small, full, minScore);
      const tiles = planTiles(img.width, img.height, {
        mode: detectOpts.tiling ?? defaultTiling,
        minFactor: opts.tileMinFactor,
        zoom: opts.tileZoom,
        overlap: opts.tileOverlap,
        maxTiles: opts.maxTiles,
      });
      if (tiles.length) {
        const fromTiles = await tiledPass(img, tiles, minScore);
        t = performance.now();
        cands = nmsCandidates([...cands, ...fromTiles], nmsIou, 0.6);
        stats.postprocessMs += performance.now() - t;
      }
      stats.images++;
      const limit = detectOpts.maxDetections ?? Infinity;
      return cands.slice(0, limit).map((c) => toDetection(c, img.width, img.height));
    },
    timings() {
      return { ...stats };
    },
    async close() {
      if (closed) return;
      closed = true;
      await session.release();
    },
  };
}

function toDetection(c: Candidate, width: number, height: number): Detection {
  const clampX = (v: number) => Math.min(width, Math.max(0, v));
  const clampY = (v: number) => Math.min(height, Math.max(0, v));
  const x1 = clampX(c.x1);
  const y1 = clampY(c.y1);
  const x2 = clampX(c.x2);
  const y2 = clampY(c.y2);
  const round = (v: number) => Math.round(v * 100) / 100;
  const polygon: Point[] = [
    { x: round(x1), y: round(y1) },
    { x: round(x2), y: round(y1) },
    { x: round(x2), y: round(y2) },
    { x: round(x1), y: round(y2) },
  ];
  return {
    label: 'face',
    score: c.score,
    box: { x: round(x1), y: round(y1), width: round(x2 - x1), height: round(y2 - y1) },
    polygon,
  };
}
