/**
 * The interface the rest of the application uses for local vision AI.
 * Everything behind it (transformers.js, onnxruntime, the worker thread, the
 * stand-ins of the test profile) is an implementation detail; build one with
 * `createVisionModels(config, logger)` from `src/models/index.ts`.
 *
 * Errors are DomainErrors:
 * - invalid_input: unknown model name, wrong task for the model, empty input;
 * - unprocessable: an image that cannot be decoded;
 * - rate_limited (details.retryAfterSeconds): the inference queue is full;
 * - unavailable: the model is not installed (run `npm run models -- fetch <name>`),
 *   or the worker failed.
 */
import type { Arch, Calibrations, Dtype, Task } from './catalog.js';
import type { Detection } from './vision/types.js';

export interface ModelInfo {
  /** Catalog name (`default`, `clip-vit-b32`, a user's own name). */
  name: string;
  /**
   * Identity to store with every vector: catalog name + repo (or local folder) +
   * dtype. Vectors from different ids must never share an index.
   */
  id: string;
  task: Task;
  arch: Arch;
  /** Embedding width; null for captioners. */
  dims: number | null;
  dtype: Dtype;
  /** True when the test profile serves a tiny stand-in instead of the real weights. */
  standin: boolean;
  /** Whether its files are present (stand-ins: whether one can be generated). */
  installed: boolean;
  /** What its similarities mean as search evidence (from the catalog; the stand-in's own in the test profile). */
  calibration: Calibrations;
  /** Face embedders: the clustering join threshold for ids starting with its name; null when none is declared. */
  clusterThreshold: number | null;
  /** Image embedders: cosine at or above which a video frame repeats the previous one (keeps its caption); null: off. */
  nearDuplicate: number | null;
}

export interface CaptionResult {
  text: string;
  /** Catalog name of the model that wrote it. */
  model: string;
}

export interface ZeroShotScore {
  label: string;
  /** Softmax over the labels of 100 × cosine similarity (CLIP's convention); sums to 1. */
  score: number;
  /** Raw cosine similarity of image and label text, in [-1, 1]. */
  similarity: number;
}

export interface LoadedModel {
  name: string;
  /** 'vision' | 'text' for embedders, 'generate' for captioners. */
  part: string;
  device: 'cpu' | 'cuda';
  /** Size of the ONNX files loaded, a proxy for memory held. */
  bytes: number;
  lastUsedAt: number;
  /** Pinned parts are never unloaded for the memory budget (the default model's text encoder). */
  pinned: boolean;
}

export interface CaptionOptions {
  /** Caption model; defaults to the profile's caption role (or prompt role when a free-form prompt is given). */
  model?: string;
  maxNewTokens?: number;
}

export interface ModelRoles {
  embed: string;
  embedFast: string | null;
  caption: string | null;
  prompt: string | null;
  detect: string | null;
  detectFaces: string | null;
  embedFaces: string | null;
  ocr: string | null;
  /** ×2 super-resolution (Swin2SR). */
  upscale: string | null;
  /** Foreground alpha matte (MODNet, BiRefNet). */
  removeBackground: string | null;
  /** Text-to-image (Janus-Pro); runs in its own worker, one generation at a time. */
  generate: string | null;
}

/** Roles served by the onnxruntime detectors of the ingest pipeline. */
export type DetectionRole = 'detect' | 'detectFaces' | 'ocr';

export interface DetectionResult {
  /** Catalog name of the detector. */
  model: string;
  /** Identity to record with results: name and a prefix of the weights' sha256. */
  modelId: string;
  detections: Detection[];
}

export interface FaceVectors {
  model: string;
  modelId: string;
  /** One L2-normalised vector per face, in the order given. */
  vectors: Float32Array[];
}

/** A generated image (square, the model's own size), before any cropping. */
export interface GeneratedImage {
  png: Buffer;
  width: number;
  height: number;
  /** Catalog name of the model that drew it. */
  model: string;
}

export interface GenerateOptions {
  /** Generation model; defaults to the profile's generate role. */
  model?: string;
  /** Sampling seed: the same prompt and seed give the same image. */
  seed?: number;
  /** Image tokens done / total, while it runs. */
  onProgress?: (done: number, total: number) => void;
}

export interface VisionModels {
  /** One L2-normalised Float32Array per image (encoded bytes: JPEG, PNG, WebP, …). `model` null/undefined → the default embedder. */
  embedImages(model: string | null | undefined, images: Buffer[]): Promise<Float32Array[]>;
  /** One L2-normalised Float32Array per text, in the same space as embedImages of the same model. */
  embedTexts(model: string | null | undefined, texts: string[]): Promise<Float32Array[]>;
  /**
   * One caption per image. A prompt that is a Florence-2 task token
   * (`<DETAILED_CAPTION>` …) goes to a Florence-2 captioner; any other prompt
   * goes to the prompt-following model (unavailable when there is none).
   */
  caption(images: Buffer[], prompt?: string, options?: CaptionOptions): Promise<CaptionResult[]>;
  /** Scores each label against the image with the embedder (template 'a photo of {}' unless given; '{}' = as is). Sorted best first. */
  zeroShot(image: Buffer, labels: string[], options?: { model?: string; template?: string }): Promise<ZeroShotScore[]>;
  /** Catalog facts of a model (default embedder when no name). Throws invalid_input for an unknown name. */
  modelInfo(name?: string): ModelInfo;
  /**
   * Catalog facts of the model that made a stored vector or result, from its
   * model id (which starts with the catalog name); null when that model has
   * left the catalog.
   */
  modelInfoById(modelId: string): ModelInfo | null;
  /** Every catalog model. */
  listModels(): ModelInfo[];
  /** Which model serves each role in the active profile. */
  roles(): ModelRoles;
  /** Parts currently loaded in the worker (mirror kept up to date by worker events). */
  loadedModels(): LoadedModel[];
  /** Inference work done so far, per `kind|model` (batches, inputs, ms) and the time any was running. */
  workStats?(): PoolWork;
  /** Loads models ahead of the first request (e.g. at server start); optional. */
  warmUp(names?: string[]): Promise<void>;
  /**
   * Runs the detector serving `role` (objects, faces, text) on one image, in the
   * model worker. Null when no model serving the role is installed: the
   * pipeline then skips that kind of object.
   */
  detect(role: DetectionRole, image: Buffer, opts?: { minScore?: number }): Promise<DetectionResult | null>;
  /** Face embeddings (the `faces` similarity model) of faces found on an image; null when not installed. */
  embedFaces(image: Buffer, faces: Detection[]): Promise<FaceVectors | null>;
  /**
   * Upscales one image ×2 with the model serving the `upscale` role (Swin2SR). Null when none is installed. PNG bytes out.
   * The result is upright (EXIF applied) and keeps an alpha channel if the input had one. Inputs above
   * 1024×1024 pixels (2048×2048 with DEVICE=cuda; UPSCALE_MAX_INPUT_PIXELS) are refused with invalid_input:
   * the model is slow on CPU. Runs in its own worker, one at a time; rate_limited when 4 already wait.
   */
  upscale(image: Buffer): Promise<{ image: Buffer; model: string; width: number; height: number } | null>;
  /**
   * Foreground alpha matte of one image, same width/height as the (EXIF-rotated) input, one 8-bit channel as PNG.
   * Null when no model serves `removeBackground`.
   */
  matte(image: Buffer): Promise<{ mask: Buffer; model: string; width: number; height: number } | null>;
  /**
   * Text to image in a dedicated generation worker (its own thread, one image
   * at a time), so searches and embeddings never wait behind it. unavailable
   * when no generation model is installed.
   */
  generateImage(prompt: string, options?: GenerateOptions): Promise<GeneratedImage>;
  /** Rejects queued work with `unavailable`, waits for in-flight work, stops the worker(s). */
  close(): Promise<void>;
}

/** Work done, per `kind|model`: batches, inputs and the wall time of their runs (ms). */
export interface PoolWork {
  /** Time with at least one batch in flight (ms): the union over workers. */
  busyMs: number;
  byKey: Record<string, { batches: number; inputs: number; ms: number }>;
}
