/**
 * YOLOX object detector (Megvii, Apache-2.0) on onnxruntime-node.
 *
 * Works with the official ONNX exports (yolox_nano/tiny at 416, yolox_s/m/l/x
 * at 640) and anything of the same layout: input `images` [1,3,H,W] (BGR, raw
 * 0–255 floats, letterboxed top-left with pad 114), output [1,N,5+C] of raw
 * grid predictions per anchor point over strides 8/16/32: cx, cy, w, h in
 * grid units, objectness, C class scores (both already sigmoid-activated in
 * the export). Decoding: x = (cx + gx)·s, y = (cy + gy)·s, w = e^w·s,
 * h = e^h·s; score = objectness × best class score; per-class NMS; boxes
 * mapped back to image pixels by dividing by the letterbox scale, clamped.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { COCO_CLASSES } from './cocoClasses.js';
import { letterbox } from './letterbox.js';
import { nms } from './nms.js';
import { openModel } from './session.js';
import type { Detection, Detector, DetectorTimings, RawImage } from './types.js';

export const YOLOX_STRIDES: readonly number[] = [8, 16, 32];

// ---- grid and decoding (pure, exported for tests) -------------------------

/** Per-anchor grid cell and stride, in the row order of the model output. */
export interface YoloxGrid {
  width: number;
  height: number;
  count: number;
  gx: Float32Array;
  gy: Float32Array;
  stride: Float32Array;
}

/** The anchor grid of a width×height input: for each stride, rows of (width/s) cells, top to bottom. */
export function yoloxGrid(width: number, height: number, strides: readonly number[] = YOLOX_STRIDES): YoloxGrid {
  for (const s of strides) {
    if (width % s !== 0 || height % s !== 0)
      throw new Error(`YOLOX input ${width}×${height} is not a multiple of stride ${s}`);
  }
  const count = strides.reduce((n, s) => n + (width / s) * (height / s), 0);
  const gx = new Float32Array(count);
  const gy = new Float32Array(count);
  const stride = new Float32Array(count);
  let i = 0;
  for (const s of strides) {
    const w = width / s;
    const h = height / s;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++, i++) {
        gx[i] = x;
        gy[i] = y;
        stride[i] = s;
      }
    }
  }
  return { width, height, count, gx, gy, stride };
}

export interface YoloxPostprocessOptions {
  grid: YoloxGrid;
  labels: readonly string[];
  /** Letterbox scale (source pixels × scale = input pixels). */
  scale: number;
  /** Source image size (boxes are clamped to it). */
  imageWidth: number;
  imageHeight: number;
  scoreThreshold: number;
  nmsIou: number;
  maxDetections: number;
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/**
 * Raw model output [N, 5+C] (flat) → detections in source pixels, best first.
 * One class per anchor (the best), then per-class NMS, as YOLOX's own postprocess.
 */
export function postprocessYolox(output: Float32Array, o: YoloxPostprocessOptions): Detection[] {
  const { grid, labels, scale, imageWidth: W, imageHeight: H, scoreThreshold: thr } = o;
  const numClasses = labels.length;
  const rowLen = 5 + numClasses;
  if (output.length !== grid.count * rowLen) {
    throw new Error(`YOLOX output has ${output.length} values, expected ${grid.count}×${rowLen}`);
  }
  const cand: number[] = []; // x1, y1, x2, y2 per candidate
  const candScore: number[] = [];
  const candClass: number[] = [];
  for (let i = 0, r = 0; i < grid.count; i++, r += rowLen) {
    const obj = output[r + 4];
    if (!(obj >= thr)) continue; // class scores are ≤ 1, so obj bounds the score (and NaN is dropped)
    let best = 0;
    let bestScore = output[r + 5];
    for (let c = 1; c < numClasses; c++) {
      const v = output[r + 5 + c];
      if (v > bestScore) {
        bestScore = v;
        best = c;
      }
    }
    const score = obj * bestScore;
    if (!(score >= thr)) continue;
    const s = grid.stride[i];
    const cx = (output[r] + grid.gx[i]) * s;
    const cy = (output[r + 1] + grid.gy[i]) * s;
    const hw = (Math.exp(output[r + 2]) * s) / 2;
    const hh = (Math.exp(output[r + 3]) * s) / 2;
    const x1 = Math.min(W, Math.max(0, (cx - hw) / scale));
    const y1 = Math.min(H, Math.max(0, (cy - hh) / scale));
    const x2 = Math.min(W, Math.max(0, (cx + hw) / scale));
    const y2 = Math.min(H, Math.max(0, (cy + hh) / scale));
    if (!(x2 - x1 >= 1 && y2 - y1 >= 1)) continue; // in the padding, or degenerate
    cand.push(x1, y1, x2, y2);
    candScore.push(score);
    candClass.push(best);
  }
  if (candScore.length === 0) return [];
  const boxes = Float32Array.from(cand);
  const keep = nms(boxes, candScore, { iouThreshold: o.nmsIou, classes: candClass, maxOutput: o.maxDetections });
  return keep.map((k) => {
    const x1 = round2(boxes[k * 4]);
    const y1 = round2(boxes[k * 4 + 1]);
    const x2 = round2(boxes[k * 4 + 2]);
    const y2 = round2(boxes[k * 4 + 3]);
    return {
      label: labels[candClass[k]],
      score: candScore[k],
      box: { x: x1, y: y1, width: round2(x2 - x1), height: round2(y2 - y1) },
      polygon: [
        { x: x1, y: y1 },
        { x: x2, y: y1 },
        { x: x2, y: y2 },
        { x: x1, y: y2 },
      ],
    };
  });
}

// ---- loading ---------------------------------------------------------------

export interface YoloxOptions {
  /** The .onnx file. */
  modelPath: string;
  /** Class names, one a line, in index order. Default: the 80 COCO names built in. */
  classesPath?: string;
  /**
   * Input size (square side, or width and height). Default: the model's own
   * input shape when fixed, else 416 for nano/tiny (by file name) and 640 otherwise.
   */
  inputSize?: number | { width: number; height: number };
  /** Minimum objectness × class score. Default 0.3. */
  scoreThreshold?: number;
  /** IoU above which a box of the same class is suppressed. Default 0.45. */
  nmsIou?: number;
  /** Default cap on detections per image. Default 100. */
  maxDetections?: number;
  /** onnxruntime execution providers. Default ['cpu']. */
  executionProviders?: ort.InferenceSession.SessionOptions['executionProviders'];
  /** onnxruntime intra-op threads (default: onnxruntime's choice, one per physical core). */
  intraOpNumThreads?: number;
  /** Let onnxruntime's idle intra-op threads spin (lower latency for back-to-back runs, but they take CPU from decoding). Default false. */
  spinning?: boolean;
  /** Model name for modelId. Default: from the file name (yolox_s.onnx → 'yolox-s'). */
  name?: string;
}

export interface YoloxDetector extends Detector {
  readonly inputWidth: number;
  readonly inputHeight: number;
  readonly labels: readonly string[];
  timings(): DetectorTimings;
}

/** 'yolox_nano.onnx' → 'yolox-nano'. */
export function modelNameFromPath(file: string): string {
  return (
    path
      .basename(file)
      .replace(/\.onnx$/i, '')
      .toLowerCase()
      .replace(/[^a-z0-9.]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'yolox'
  );
}

/** The input size YOLOX variants were trained at: 416 for nano and tiny, 640 for the rest. */
export function defaultYoloxInputSize(name: string): number {
  return /nano|tiny/i.test(name) ? 416 : 640;
}

async function readClasses(file: string): Promise<string[]> {
  const lines = (await readFile(file, 'utf8')).split(/\r?\n/).map((l) => l.trim());
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) throw new Error(`class list ${file} is empty`);
  if (lines.some((l) => l === '')) throw new Error(`class list ${file} has an empty line inside`);
  return lines;
}

function fixedDims(meta: ort.InferenceSession.ValueMetadata | undefined): (number | null)[] | null {
  if (!meta || !meta.isTensor || meta.shape.length === 0) return null;
  return meta.shape.map((d) => (typeof d === 'number' && d > 0 ? d : null));
}

function resolveInputSize(
  opts: YoloxOptions,
  name: string,
  dims: (number | null)[] | null,
): { width: number; height: number } {
  const asked = typeof opts.inputSize === 'number' ? { width: opts.inputSize, height: opts.inputSize } : opts.inputSize;
  if (dims && dims.length !== 4)
    throw new Error(`${opts.modelPath}: YOLOX input must be [1,3,H,W], got [${dims.join(',')}]`);
  if (dims && dims[1] !== null && dims[1] !== 3)
    throw new Error(`${opts.modelPath}: YOLOX input must have 3 channels, got ${dims[1]}`);
  const fixedH = dims?.[2] ?? null;
  const fixedW = dims?.[3] ?? null;
  if (fixedH !== null && fixedW !== null) {
    if (asked && (asked.width !== fixedW || asked.height !== fixedH)) {
      throw new Error(
        `${opts.modelPath} has a fixed ${fixedW}×${fixedH} input; inputSize ${asked.width}×${asked.height} does not match`,
      );
    }
    return { width: fixedW, height: fixedH };
  }
  if (asked) return asked;
  const side = defaultYoloxInputSize(name);
  return { width: fixedW ?? side, height: fixedH ?? side };
}

/** Loads a YOLOX ONNX model; the returned detector is safe to call concurrently. */
export async function loadYoloxDetector(opts: YoloxOptions): Promise<YoloxDetector> {
  const scoreThreshold = opts.scoreThreshold ?? 0.3;
  const nmsIou = opts.nmsIou ?? 0.45;
  const defaultMax = opts.maxDetections ?? 100;
  const labels = opts.classesPath ? await readClasses(opts.classesPath) : COCO_CLASSES;
  const name = opts.name ?? modelNameFromPath(opts.modelPath);
  const { modelId, session } = await openModel(opts.modelPath, name, {
    executionProviders: opts.executionProviders,
    spinning: opts.spinning,
    threads: opts.intraOpNumThreads,
  });
  try {
    if (session.inputNames.length !== 1 || session.outputNames.length < 1) {
      throw new Error(
        `${opts.modelPath}: expected one image input and an output, got inputs [${session.inputNames}] outputs [${session.outputNames}]`,
      );
    }
    const { width, height } = resolveInputSize(opts, name, fixedDims(session.inputMetadata[0]));
    const grid = yoloxGrid(width, height);
    const outDims = fixedDims(session.outputMetadata[0]);
    if (outDims) {
      const [, n, k] = outDims;
      if (outDims.length !== 3 || (n !== null && n !== grid.count) || (k !== null && k !== 5 + labels.length)) {
        throw new Error(
          `${opts.modelPath}: output [${session.outputMetadata[0].isTensor ? session.outputMetadata[0].shape.join(',') : '?'}] ` +
            `does not fit a ${width}×${height} YOLOX with ${labels.length} classes (expected [1,${grid.count},${5 + labels.length}])`,
        );
      }
    }
    return new YoloxSession(session, modelId, width, height, grid, labels, scoreThreshold, nmsIou, defaultMax);
  } catch (err) {
    await session.release();
    throw err;
  }
}

/** How many input tensors a detector keeps for reuse (one per concurrent call up to this). */
const TENSOR_POOL = 4;

class YoloxSession implements YoloxDetector {
  private closed = false;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly pool: Float32Array[] = [];
  private readonly stats: DetectorTimings = { images: 0, preprocessMs: 0, inferenceMs: 0, postprocessMs: 0 };
  private readonly inputName: string;
  private readonly outputName: string;

  constructor(
    private readonly session: ort.InferenceSession,
    readonly modelId: string,
    readonly inputWidth: number,
    readonly inputHeight: number,
    private readonly grid: YoloxGrid,
    readonly labels: readonly string[],
    private readonly scoreThreshold: number,
    private readonly nmsIou: number,
    private readonly maxDetections: number,
  ) {
    this.inputName = session.inputNames[0];
    this.outputName = session.outputNames[0];
  }

  detect(image: Buffer | RawImage, opts: { minScore?: number; maxDetections?: number } = {}): Promise<Detection[]> {
    if (this.closed) return Promise.reject(new Error(`detector ${this.modelId} is closed`));
    const p = this.run(image, opts);
    this.inflight.add(p);
    const done = () => this.inflight.delete(p);
    p.then(done, done);
    return p;
  }

  private async run(
    image: Buffer | RawImage,
    opts: { minScore?: number; maxDetections?: number },
  ): Promise<Detection[]> {
    const t0 = performance.now();
    const buffer = this.pool.pop();
    let result: ort.InferenceSession.OnnxValueMapType | null = null;
    try {
      const lb = await letterbox(image, this.inputWidth, this.inputHeight, { pad: 114, order: 'bgr', out: buffer });
      const t1 = performance.now();
      const input = new ort.Tensor('float32', lb.tensor, [1, 3, this.inputHeight, this.inputWidth]);
      result = await this.session.run({ [this.inputName]: input });
      const t2 = performance.now();
      if (this.pool.length < TENSOR_POOL) this.pool.push(lb.tensor);
      const out = result[this.outputName];
      const k = 5 + this.labels.length;
      if (out.type !== 'float32' || out.dims.length !== 3 || out.dims[1] !== this.grid.count || out.dims[2] !== k) {
        throw new Error(
          `${this.modelId}: output [${out.dims.join(',')}] ${out.type}, expected [1,${this.grid.count},${k}] float32`,
        );
      }
      const detections = postprocessYolox(out.data as Float32Array, {
        grid: this.grid,
        labels: this.labels,
        scale: lb.scale,
        imageWidth: lb.sourceWidth,
        imageHeight: lb.sourceHeight,
        scoreThreshold: opts.minScore ?? this.scoreThreshold,
        nmsIou: this.nmsIou,
        maxDetections: opts.maxDetections ?? this.maxDetections,
      });
      const t3 = performance.now();
      this.stats.images++;
      this.stats.preprocessMs += t1 - t0;
      this.stats.inferenceMs += t2 - t1;
      this.stats.postprocessMs += t3 - t2;
      return detections;
    } finally {
      if (result) for (const t of Object.values(result)) t.dispose();
    }
  }

  timings(): DetectorTimings {
    return { ...this.stats };
  }

  /** Waits for calls in flight, then frees the session; later calls reject. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inflight]);
    this.pool.length = 0;
    await this.session.release();
  }
}
