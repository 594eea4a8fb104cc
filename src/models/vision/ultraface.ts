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
import type { Detection, Detector, DetectorTimings, RawImage } from './types.js';
import { toRawImage } from './rawImage.js';
import { openModel, sessionLifetime } from './session.js';
import {
  cropResize,
  INPUT_H,
  INPUT_W,
  nmsCandidates,
  planTiles,
  toDetection,
  type Candidate,
  type Region,
  type TilingMode,
} from './ultrafaceTiles.js';

export { cropResize, nmsCandidates, planTiles, toRawImage, type Region, type TilingMode };

/** Catalog name of the model; the detector's modelId is `<name>:<first 12 hex of the file's sha256>`. */
export const ULTRAFACE_MODEL_NAME = 'ultraface-rfb-320';

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

/** What the passes of one detector share: its session and the timings they add to. */
interface UltraFaceRunner {
  session: ort.InferenceSession;
  inputName: string;
  nmsIou: number;
  stats: DetectorTimings & { modelRuns: number };
}

const PLANE = INPUT_W * INPUT_H;
/** Faces at least this big (in full-pass input pixels) are the full pass's job; a tile's take on them is often a part. */
const BIG_FACE = 40;

/** One model run on a 320×240 packed-RGB input; boxes mapped onto `region` of the image. */
async function runModel(runner: UltraFaceRunner, rgb: Buffer, region: Region, minScore: number): Promise<Candidate[]> {
  const { stats } = runner;
  let t = performance.now();
  const input = new Float32Array(3 * PLANE);
  for (let i = 0, p = 0; i < PLANE; i++, p += 3) {
    input[i] = (rgb[p] - 127) / 128;
    input[PLANE + i] = (rgb[p + 1] - 127) / 128;
    input[2 * PLANE + i] = (rgb[p + 2] - 127) / 128;
  }
  const tensor = new ort.Tensor('float32', input, [1, 3, INPUT_H, INPUT_W]);
  stats.preprocessMs += performance.now() - t;
  t = performance.now();
  const out = await runner.session.run({ [runner.inputName]: tensor });
  stats.inferenceMs += performance.now() - t;
  stats.modelRuns++;
  t = performance.now();
  const scores = out.scores.data as Float32Array;
  const boxes = out.boxes.data as Float32Array;
  const rows = scores.length / 2;
  const found: Candidate[] = [];
  for (let i = 0; i < rows; i++) {
    const score = scores[2 * i + 1];
    if (!(score > minScore)) continue;
    const x1 = region.left + boxes[4 * i] * region.width;
    const y1 = region.top + boxes[4 * i + 1] * region.height;
    const x2 = region.left + boxes[4 * i + 2] * region.width;
    const y2 = region.top + boxes[4 * i + 3] * region.height;
    if (x2 - x1 < 1 || y2 - y1 < 1) continue;
    found.push({ score, x1, y1, x2, y2 });
  }
  const kept = nmsCandidates(found, runner.nmsIou);
  stats.postprocessMs += performance.now() - t;
  return kept;
}

/** The image downscaled once so that a tile (every tile has the same size) becomes exactly 320×240. */
async function tileLevel(runner: UltraFaceRunner, img: RawImage, tile: Region): Promise<RawImage> {
  const levelWidth = Math.max(INPUT_W, Math.round(img.width / (tile.width / INPUT_W)));
  const levelHeight = Math.max(INPUT_H, Math.round(img.height / (tile.height / INPUT_H)));
  if (levelWidth === img.width && levelHeight === img.height) return img;
  const t = performance.now();
  const whole = { left: 0, top: 0, width: img.width, height: img.height };
  const data = await cropResize(img, whole, levelWidth, levelHeight);
  runner.stats.preprocessMs += performance.now() - t;
  return { data, width: levelWidth, height: levelHeight, channels: 3 };
}

/** The small-face pass: tiles planned on the image, cut from one downscaled copy of it. */
async function tiledPass(
  runner: UltraFaceRunner,
  img: RawImage,
  tiles: Region[],
  minScore: number,
): Promise<Candidate[]> {
  const level = await tileLevel(runner, img, tiles[0]);
  const { width: lw, height: lh } = level;
  const fx = img.width / lw;
  const fy = img.height / lh;
  const kept: Candidate[] = [];
  const rgb = Buffer.allocUnsafe(PLANE * 3);
  for (const tile of tiles) {
    const left = Math.min(lw - INPUT_W, Math.round(tile.left / fx));
    const top = Math.min(lh - INPUT_H, Math.round(tile.top / fy));
    const tc = performance.now();
    for (let y = 0; y < INPUT_H; y++) {
      const from = ((top + y) * lw + left) * 3;
      level.data.copy(rgb, y * INPUT_W * 3, from, from + INPUT_W * 3);
    }
    runner.stats.preprocessMs += performance.now() - tc;
    const region: Region = { left: left * fx, top: top * fy, width: INPUT_W * fx, height: INPUT_H * fy };
    const edge = 0.01 * INPUT_W * fx;
    for (const c of await runModel(runner, rgb, region, minScore)) {
      // A face cut by an inner tile edge is whole in the neighbouring tile (or the full pass).
      const cut =
        (left > 0 && c.x1 <= region.left + edge) ||
        (top > 0 && c.y1 <= region.top + edge) ||
        (left + INPUT_W < lw && c.x2 >= region.left + region.width - edge) ||
        (top + INPUT_H < lh && c.y2 >= region.top + region.height - edge);
      const big =
        ((c.x2 - c.x1) * INPUT_W) / img.width >= BIG_FACE || ((c.y2 - c.y1) * INPUT_H) / img.height >= BIG_FACE;
      if (!cut && !big) kept.push(c);
    }
  }
  return kept;
}

/** The full pass, then (when the image calls for it) the tiled pass, merged by NMS. */
async function detectFaces(
  runner: UltraFaceRunner,
  opts: UltraFaceOptions,
  image: Buffer | RawImage,
  detectOpts: FaceDetectOptions,
): Promise<Detection[]> {
  const { stats } = runner;
  let t = performance.now();
  const img = await toRawImage(image);
  const minScore = detectOpts.minScore ?? opts.scoreThreshold ?? 0.7;
  const full: Region = { left: 0, top: 0, width: img.width, height: img.height };
  const small = await cropResize(img, full, INPUT_W, INPUT_H);
  stats.preprocessMs += performance.now() - t;
  let cands = await runModel(runner, small, full, minScore);
  const tiles = planTiles(img.width, img.height, {
    mode: detectOpts.tiling ?? opts.tiling ?? 'auto',
    minFactor: opts.tileMinFactor,
    zoom: opts.tileZoom,
    overlap: opts.tileOverlap,
    maxTiles: opts.maxTiles,
  });
  if (tiles.length) {
    const fromTiles = await tiledPass(runner, img, tiles, minScore);
    t = performance.now();
    cands = nmsCandidates([...cands, ...fromTiles], runner.nmsIou, 0.6);
    stats.postprocessMs += performance.now() - t;
  }
  stats.images++;
  const limit = detectOpts.maxDetections ?? Infinity;
  return cands.slice(0, limit).map((c) => toDetection(c, img.width, img.height));
}

export async function loadUltraFaceDetector(opts: UltraFaceOptions): Promise<UltraFaceDetector> {
  const { modelId, session } = await openModel(opts.modelPath, opts.modelName ?? ULTRAFACE_MODEL_NAME, {
    threads: opts.threads,
  });
  if (!session.outputNames.includes('scores') || !session.outputNames.includes('boxes')) {
    throw new Error(
      `${opts.modelPath} is not an UltraFace model: outputs are ${session.outputNames.join(', ')} (want scores, boxes)`,
    );
  }
  const runner: UltraFaceRunner = {
    session,
    inputName: session.inputNames[0],
    nmsIou: opts.nmsIou ?? 0.3,
    stats: { images: 0, modelRuns: 0, preprocessMs: 0, inferenceMs: 0, postprocessMs: 0 },
  };
  const lifetime = sessionLifetime(`face detector ${modelId} is closed`, [session]);
  return {
    modelId,
    async detect(image, detectOpts = {}) {
      lifetime.assertOpen();
      return detectFaces(runner, opts, image, detectOpts);
    },
    timings() {
      return { ...runner.stats };
    },
    close: lifetime.close,
  };
}
