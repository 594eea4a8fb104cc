/**
 * A stand-in for SFace (OpenCV Zoo `face_recognition_sface_2021dec.onnx`):
 * the real input and output names and shapes, tiny made-up weights, so the
 * real `loadFaceEmbedder` code runs in tests without the 37 MB real file.
 *
 *   data [1,3,112,112] (0–255) → fc1 [1,128]
 *
 * What it computes: the face crop averaged down to a coarse, slightly blurred
 * colour grid (8×8 cells × 3 channels, each cell averaging the 28-pixel
 * window around it), minus the grid's own mean (so overall
 * brightness does not count), projected onto 128 dimensions by a fixed seeded
 * Gaussian matrix (which keeps angles between vectors about the same). So
 * the vector describes the layout of colour and light in the crop: crops of
 * the same face (the same photo re-encoded or resized, or the box shifted or
 * rescaled a little) land close together, crops of different people (other
 * hair, skin, glasses, background) further apart. It knows nothing about
 * identity: two photos of one person in different light are not near.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { GraphBuilder } from '../onnx/graphBuilder.js';
import { hashSeed } from '../colours.js';
import { seededRandom } from '../../../platform/random.js';

/** The real file's name, so a stand-in folder looks like a fetched one. */
export const SFACE_FILE = 'face_recognition_sface_2021dec.onnx';

export interface SfaceStandinOptions {
  /** Cells per side of the colour grid; must divide 112 (default 8: 14-pixel cells). */
  grid?: number;
  /** Output width (default 128, as SFace). */
  dims?: number;
  /** Seeds the projection (default `sface`). */
  seed?: string;
  /** Pool window in cells (default 2: each cell averages the 2×2-cell area around it, a blurrier, more shift-tolerant grid). */
  window?: number;
}

/** Standard normal samples from a uniform generator (Box–Muller). */
function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

let standinId: string | null = null;
/**
 * The model id the default stand-in gets under the catalog name `sface`
 * (`sface:<sha12 of its bytes>`, as the face embedder names any SFace file).
 */
export function sfaceStandinModelId(): string {
  standinId ??= `sface:${createHash('sha256').update(sfaceStandinModel()).digest('hex').slice(0, 12)}`;
  return standinId;
}

/** The ONNX bytes of the stand-in. */
export function sfaceStandinModel(opts: SfaceStandinOptions = {}): Uint8Array {
  const grid = opts.grid ?? 8;
  const D = opts.dims ?? 128;
  if (112 % grid !== 0) throw new Error(`grid ${grid} must divide 112`);
  const cell = 112 / grid;
  const F = 3 * grid * grid;
  const random = seededRandom(hashSeed(opts.seed ?? 'sface'));
  const proj = new Float32Array(F * D);
  for (let i = 0; i < proj.length; i++) proj[i] = gaussian(random) / Math.sqrt(D);
  // A tiny bias keeps a featureless (uniform) crop off the zero vector.
  const bias = new Float32Array(D);
  for (let i = 0; i < D; i++) bias[i] = 1e-3 * gaussian(random);

  const g = new GraphBuilder('sface_standin');
  const data = g.input('data', 'float32', [1, 3, 112, 112]);
  const win = opts.window ?? 2;
  const k = cell * win;
  const lo = Math.floor((k - cell) / 2);
  const hi = k - cell - lo;
  // Windows of k×k every `cell` pixels; edge windows average only the pixels inside the crop.
  const pooled = g.op('AveragePool', [data], {
    kernel_shape: [k, k],
    strides: [cell, cell],
    pads: [lo, lo, hi, hi],
    count_include_pad: 0,
  });
  const flat = g.op('Flatten', [pooled], { axis: 1 });
  const mean = g.op('ReduceMean', [flat], { axes: [1], keepdims: 1 });
  const centred = g.op('Sub', [flat, mean]);
  const projected = g.op('MatMul', [centred, g.floatTensor(proj, [F, D], 'proj')]);
  const out = g.op('Add', [projected, g.floatTensor(bias, [D], 'bias')]);
  g.output(out, 'fc1', 'float32', [1, D]);
  return g.toModel({
    docString: `stand-in SFace: ${grid}x${grid} colour grid (window ${win}), mean-centred, random projection to ${D}`,
  });
}

/** The stand-in's folder contents (file name → bytes), the layout a fetched SFace has. */
export function sfaceStandinFiles(opts: SfaceStandinOptions = {}): Map<string, Uint8Array> {
  return new Map([[SFACE_FILE, sfaceStandinModel(opts)]]);
}

/** Writes the stand-in into `dir` under the real file name; returns the file's path. */
export function writeSfaceStandin(dir: string, opts: SfaceStandinOptions = {}): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, SFACE_FILE);
  writeFileSync(file, sfaceStandinModel(opts));
  return file;
}
