/**
 * Messages between the main thread (WorkerPool) and a model worker.
 * Inputs travel as Uint8Array (image bytes) or strings; vectors come back as
 * Float32Arrays whose buffers are transferred, not copied.
 */
import type { SerializedError } from '../../platform/errors.js';
import type { ModelEntry, Profile } from '../catalog.js';
import type { LoadedModel } from '../types.js';

export type RequestKind =
  | 'embedImages'
  | 'embedTexts'
  | 'caption'
  | 'warm'
  | 'detect'
  | 'embedFaces'
  | 'modelId'
  | 'generate'
  | 'upscale'
  | 'matte';

export interface RequestOptions {
  prompt?: string;
  maxNewTokens?: number;
  /** detect: drop detections scoring below this. */
  minScore?: number;
  /** embedFaces: the JSON-encoded face detections of the one input image. */
  faces?: string;
  /** generate: sampling seed (same prompt and seed → same image). */
  seed?: number;
  /** upscale: refuse inputs with more pixels than this (the tiled model is slow on CPU). */
  maxInputPixels?: number;
}

/** workerData of every model worker. */
export interface WorkerSetup {
  modelsDir: string;
  profile: Profile;
  device: 'cpu' | 'cuda';
  memoryBudgetMB: number | null;
  maxImagePixels: number;
  entries: ModelEntry[];
  /** Scheduling niceness of the worker thread (and the onnxruntime threads it starts); 0 leaves it. */
  nice: number;
  /** Registry keys ("name:part") never unloaded. */
  pinned: string[];
}

export interface WorkerRequest {
  type: 'request';
  id: number;
  kind: RequestKind;
  model: string;
  inputs: (Uint8Array | string)[];
  options: RequestOptions;
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; outputs: (Float32Array | string | Uint8Array)[] }
  /** Long requests (generate) report steps done of total while they run. */
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'error'; id: number; error: SerializedError }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; msg: string; fields?: Record<string, unknown> }
  | { type: 'models'; loaded: LoadedModel[] };
