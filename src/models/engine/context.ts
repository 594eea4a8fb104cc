/**
 * What the in-worker engine pieces share: where a model's files are, which
 * dtype to ask for, the registry of loaded parts and the device chooser.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { DTYPE_SUFFIX, type Dtype, type ModelEntry } from '../catalog.js';
import type { DeviceChooser } from './device.js';
import type { PartRegistry } from './registry.js';
import { normalizeRow } from '../../index/vector/math.js';

export interface EngineContext {
  registry: PartRegistry;
  devices: DeviceChooser;
  /** Model id relative to transformers' env.localModelPath. */
  modelId(entry: ModelEntry): string;
  /** Absolute folder of the model's files. */
  folder(entry: ModelEntry): string;
  /** dtype to load (stand-ins are always fp32). */
  dtype(entry: ModelEntry): Dtype;
  maxPixels: number;
}

/** Bytes of the ONNX files of some parts (the memory-budget proxy). */
export function partBytes(ctx: EngineContext, entry: ModelEntry, parts: readonly string[]): number {
  let total = 0;
  for (const part of parts) {
    const base = path.join(ctx.folder(entry), 'onnx', `${part}${DTYPE_SUFFIX[ctx.dtype(entry)]}.onnx`);
    for (const file of [base, base + '_data']) {
      try {
        total += statSync(file).size;
      } catch {
        // external data files are optional
      }
    }
  }
  return total;
}

/** Splits a list into chunks of at most n (bounds the tensor sizes of one run). */
export function chunks<T>(items: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out;
}

/** L2-normalised copies of the rows of a [rows, dims] Float32 buffer. */
export function normalisedRows(data: Float32Array, rows: number, dims: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let r = 0; r < rows; r++) {
    const row = data.slice(r * dims, (r + 1) * dims);
    normalizeRow(row, 0, dims);
    out.push(row);
  }
  return out;
}
