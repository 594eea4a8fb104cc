/**
 * One OCR run over an image: detection of the text boxes, recognition of the
 * lines (with the optional direction classifier), and the Detections in
 * reading order. The functions work on an OcrReader: the open sessions, the
 * settings and the timings they add to.
 */
import * as ort from 'onnxruntime-node';
import type { Detection, DetectorTimings, Point, RawImage } from '../types.js';
import { ctcGreedyDecode } from './ctc.js';
import { detPostprocess, detPreprocess, type TextBox } from './detect.js';
import { decodeRgb } from './image.js';
import type { OcrSettings } from './options.js';
import { REC_HEIGHT, fillStrip, planStrip, type Strip } from './recognize.js';

/** Input width of the direction classifier (PaddleOCR's cls_image_shape 3,48,192). */
const CLS_WIDTH = 192;

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

/** What the stages of a run share: the sessions, the settings and the running totals. */
export interface OcrReader {
  det: ort.InferenceSession;
  rec: ort.InferenceSession;
  cls: ort.InferenceSession | null;
  charset: string[];
  settings: OcrSettings;
  totals: OcrTimings;
  last: OcrRunTimings | null;
}

export function emptyOcrTimings(): OcrTimings {
  return {
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
}

/** Reading order: by top edge, then lines whose tops are within half a line height are ordered left to right. */
export function sortReadingOrder<T extends { polygon: Point[] }>(items: T[]): T[] {
  const top = (item: T) => Math.min(...item.polygon.map((point) => point.y));
  const left = (item: T) => Math.min(...item.polygon.map((point) => point.x));
  const height = (item: T) => Math.max(...item.polygon.map((point) => point.y)) - top(item);
  const sorted = [...items].sort((a, b) => top(a) - top(b) || left(a) - left(b));
  for (let i = 0; i < sorted.length - 1; i++) {
    for (let j = i; j >= 0; j--) {
      const tolerance = 0.5 * Math.min(height(sorted[j]), height(sorted[j + 1]));
      if (Math.abs(top(sorted[j + 1]) - top(sorted[j])) < tolerance && left(sorted[j + 1]) < left(sorted[j])) {
        [sorted[j], sorted[j + 1]] = [sorted[j + 1], sorted[j]];
      } else break;
    }
  }
  return sorted;
}

/** Turns upside-down strips (in place) by the classifier's verdict; returns which were turned. */
async function classifyAngles(reader: OcrReader, img: RawImage, strips: Strip[], order: number[]): Promise<boolean[]> {
  const { cls, totals } = reader;
  const { batchSize, angleThreshold } = reader.settings;
  const turned = strips.map(() => false);
  if (!cls) return turned;
  for (let start = 0; start < order.length; start += batchSize) {
    let t = performance.now();
    const group = order.slice(start, start + batchSize);
    const block = 3 * REC_HEIGHT * CLS_WIDTH;
    const input = new Float32Array(group.length * block);
    group.forEach((line, k) => {
      const strip = { ...strips[line], width: Math.min(CLS_WIDTH, strips[line].width) };
      fillStrip(img, strip, input, k * block, CLS_WIDTH, reader.settings.order);
    });
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
    const probs = out.data as Float32Array;
    group.forEach((line, k) => {
      if (probs[k * 2 + 1] > probs[k * 2] && probs[k * 2 + 1] >= angleThreshold) {
        const quad = strips[line].quad;
        strips[line] = { ...strips[line], quad: [quad[2], quad[3], quad[0], quad[1]] };
        turned[line] = true;
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

interface Attempt {
  line: number;
  strip: Strip;
  turned: boolean;
}

/** Indices of the strips, narrowest first (ties by index). */
const byWidth = (list: Strip[]) => list.map((_, i) => i).sort((a, b) => list[a].width - list[b].width || a - b);

/**
 * The recognition attempts: every line as classified; a turned line also as
 * detected, the better reading wins (the classifier sometimes turns
 * symmetric-looking words such as "Seoul").
 */
async function recognitionAttempts(reader: OcrReader, img: RawImage, boxes: TextBox[]): Promise<Attempt[]> {
  const { maxRecWidth, recMargin } = reader.settings;
  const planned = boxes.map((box) => planStrip(box.quad, maxRecWidth, recMargin));
  const strips = [...planned];
  const turned = await classifyAngles(reader, img, strips, byWidth(strips));
  const attempts: Attempt[] = strips.map((strip, line) => ({ line, strip, turned: turned[line] }));
  turned.forEach((wasTurned, line) => {
    if (wasTurned) attempts.push({ line, strip: planned[line], turned: false });
  });
  return attempts;
}

async function recognise(reader: OcrReader, img: RawImage, boxes: TextBox[]): Promise<Read[]> {
  const { rec, charset, totals } = reader;
  const { batchSize, minRecWidth, order } = reader.settings;
  const attempts = await recognitionAttempts(reader, img, boxes);
  const results: Read[] = new Array(boxes.length);
  // Similar widths together: less padding per batch.
  const sorted = byWidth(attempts.map((attempt) => attempt.strip));
  for (let start = 0; start < sorted.length; start += batchSize) {
    let t = performance.now();
    const group = sorted.slice(start, start + batchSize).map((i) => attempts[i]);
    const width = Math.max(minRecWidth, ...group.map((attempt) => attempt.strip.width));
    const block = 3 * REC_HEIGHT * width;
    const input = new Float32Array(group.length * block);
    group.forEach((attempt, k) => fillStrip(img, attempt.strip, input, k * block, width, order));
    let now = performance.now();
    totals.recPreMs += now - t;
    t = now;
    const feed = { [rec.inputNames[0]]: new ort.Tensor('float32', input, [group.length, 3, REC_HEIGHT, width]) };
    const out = (await rec.run(feed))[rec.outputNames[0]];
    now = performance.now();
    totals.recInferMs += now - t;
    t = now;
    const [, steps, classes] = out.dims as number[];
    const probs = out.data as Float32Array;
    group.forEach((attempt, k) => {
      const decoded = ctcGreedyDecode(probs, steps, classes, charset, k * steps * classes);
      const prev = results[attempt.line];
      if (!prev || decoded.score > prev.score || (decoded.score === prev.score && !attempt.turned)) {
        results[attempt.line] = {
          text: decoded.text,
          score: decoded.score,
          strip: attempt.strip,
          turned: attempt.turned,
        };
      }
    });
    totals.recPostMs += performance.now() - t;
  }
  return results;
}

/** The decoded image and its text boxes, by the detection model (decoding counts as detection pre-processing). */
async function detectBoxes(reader: OcrReader, image: Buffer | RawImage): Promise<{ img: RawImage; boxes: TextBox[] }> {
  const { det, totals } = reader;
  const { maxSide, order, post } = reader.settings;
  let t = performance.now();
  const img = await decodeRgb(image);
  const input = await detPreprocess(img, maxSide, order);
  let now = performance.now();
  totals.detPreMs += now - t;
  t = now;
  const feed = { [det.inputNames[0]]: new ort.Tensor('float32', input.data, [1, 3, input.height, input.width]) };
  const out = (await det.run(feed))[det.outputNames[0]];
  now = performance.now();
  totals.detInferMs += now - t;
  t = now;
  const [, , mapHeight, mapWidth] = out.dims as number[];
  const boxes = detPostprocess(out.data as Float32Array, mapWidth, mapHeight, img.width, img.height, post);
  totals.detPostMs += performance.now() - t;
  return { img, boxes };
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/** The lines read well enough, as Detections in reading order (the best `maxDetections` when given). */
function toDetections(read: Read[], boxes: TextBox[], minScore: number, maxDetections?: number): Detection[] {
  let found: Detection[] = [];
  read.forEach((reading, i) => {
    const text = reading.text.trim();
    if (!text || reading.score < minScore) return;
    const polygon = boxes[i].quad.map((point) => ({ x: round2(point.x), y: round2(point.y) }));
    const xs = polygon.map((point) => point.x);
    const ys = polygon.map((point) => point.y);
    const x = Math.min(...xs);
    const y = Math.min(...ys);
    found.push({
      label: text,
      score: reading.score,
      box: { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y },
      polygon,
      extra: {
        boxScore: boxes[i].score,
        ...(reading.strip.rotated ? { vertical: true } : {}),
        ...(reading.turned ? { upsideDown: true } : {}),
      },
    });
  });
  if (maxDetections !== undefined && found.length > maxDetections) {
    found = [...found].sort((a, b) => b.score - a.score).slice(0, Math.max(0, maxDetections));
  }
  return sortReadingOrder(found);
}

/** Detects and reads the lines of text of one image; adds to the reader's totals and sets its last run. */
export async function readText(
  reader: OcrReader,
  image: Buffer | RawImage,
  callOpts: { minScore?: number; maxDetections?: number },
): Promise<Detection[]> {
  const { totals } = reader;
  const started = performance.now();
  const { img, boxes } = await detectBoxes(reader, image);
  const detDone = performance.now();
  const read = boxes.length ? await recognise(reader, img, boxes) : [];
  const recMs = performance.now() - detDone;
  const t = performance.now();
  const found = toDetections(read, boxes, callOpts.minScore ?? reader.settings.minScore, callOpts.maxDetections);
  totals.recPostMs += performance.now() - t;

  totals.images++;
  totals.lines += boxes.length;
  totals.preprocessMs = totals.detPreMs + totals.recPreMs;
  totals.inferenceMs = totals.detInferMs + totals.recInferMs;
  totals.postprocessMs = totals.detPostMs + totals.recPostMs;
  reader.last = { detMs: detDone - started, recMs, lines: boxes.length };
  return found;
}
