/**
 * Stand-ins for the test profile (MODEL_PROFILE=test): for every catalog entry
 * whose shape we can imitate, a tiny real model in the real folder layout,
 * generated on first use into `<modelsDir>/.standins/<name>/` (never
 * committed; models/*\/ is git-ignored). Generation takes milliseconds, so it
 * happens at test set-up or lazily when the runner first loads the model.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ORT_ARCHES, type Catalog, type ModelEntry } from '../catalog.js';
import { captionerStandinFiles } from './captioner.js';
import { embedderStandinFiles, type StandinFiles } from './embedder.js';
import { florence2StandinFiles } from './florence2.js';
import { janusStandinFiles } from './janus.js';
import { mattingStandinFiles } from './modnet.js';
import { swin2srStandinFiles } from './swin2sr.js';
import { SFACE_FILE, sfaceStandinModel } from './vision/sface.js';
import { yoloxStandinModel } from './vision/yolox.js';

/**
 * Bump when generated files change, so old caches are rebuilt; models/catalog.json
 * `standins.version` (which names stand-ins in model ids) must follow.
 */
export const STANDIN_VERSION = 4;
const MARKER = 'standin.json';

/** Where the stand-ins of a models directory live (transformers.js localModelPath in the test profile). */
export function standinRoot(modelsDir: string): string {
  return path.join(modelsDir, '.standins');
}

/** Whether a stand-in of this entry's shape exists. */
export function hasStandin(entry: ModelEntry): boolean {
  // smolvlm has none; the onnxruntime detectors get theirs from detectorStandin (below).
  return entry.arch !== 'smolvlm' && !ORT_ARCHES.includes(entry.arch);
}

function filesFor(entry: ModelEntry): StandinFiles {
  if (entry.arch === 'clip' || entry.arch === 'siglip') {
    return embedderStandinFiles({ arch: entry.arch, dims: entry.dims ?? 512, seed: entry.name });
  }
  if (entry.arch === 'vit-gpt2') return captionerStandinFiles();
  if (entry.arch === 'florence2') return florence2StandinFiles();
  if (entry.arch === 'janus') return janusStandinFiles();
  if (entry.arch === 'swin2sr') return swin2srStandinFiles();
  if (entry.arch === 'modnet' || entry.arch === 'birefnet') return mattingStandinFiles(entry.arch);
  throw new Error(`no stand-in for ${entry.arch} models (${entry.name})`);
}

function markerFor(entry: ModelEntry) {
  return { version: STANDIN_VERSION, name: entry.name, arch: entry.arch, dims: entry.dims };
}

function isCurrent(folder: string, entry: ModelEntry): boolean {
  try {
    return readFileSync(path.join(folder, MARKER), 'utf8') === JSON.stringify(markerFor(entry));
  } catch {
    return false;
  }
}

/**
 * Makes sure `<root>/<name>/` holds the current stand-in of `entry`; returns
 * the folder. Written to a temporary folder and renamed, so concurrent test
 * processes sharing a models directory never see half a model.
 */
export function ensureStandin(entry: ModelEntry, root: string): string {
  const folder = path.join(root, entry.name);
  if (isCurrent(folder, entry)) return folder;
  const tmp = path.join(root, `.tmp-${entry.name}-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    for (const [rel, data] of filesFor(entry)) {
      const file = path.join(tmp, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, data);
    }
    writeFileSync(path.join(tmp, MARKER), JSON.stringify(markerFor(entry)));
    if (existsSync(folder) && !isCurrent(folder, entry)) rmSync(folder, { recursive: true, force: true });
    try {
      renameSync(tmp, folder);
    } catch (err) {
      // Another process finished first: fine if what it wrote is current.
      if (!isCurrent(folder, entry)) throw err;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return folder;
}

/** Generates every stand-in a catalog can have; returns the root and the time taken. */
export function ensureStandins(modelsDir: string, catalog: Catalog): { root: string; ms: number; names: string[] } {
  const started = performance.now();
  const root = standinRoot(modelsDir);
  const names: string[] = [];
  for (const entry of catalog.models.values()) {
    if (!hasStandin(entry)) continue;
    ensureStandin(entry, root);
    names.push(entry.name);
  }
  return { root, ms: performance.now() - started, names };
}

/** A detector's stand-in: the file name it takes in the entry's stand-in folder, and its bytes. */
export interface DetectorStandin {
  fileName: string;
  build(): Uint8Array;
}

/** The stand-in of an onnxruntime detector entry (YOLOX, SFace); null for detectors without one. */
export function detectorStandin(entry: ModelEntry): DetectorStandin | null {
  if (entry.arch === 'sface') return { fileName: SFACE_FILE, build: () => sfaceStandinModel() };
  const file = entry.files[0]?.path;
  if (entry.arch === 'yolox' && file) {
    return { fileName: file, build: () => yoloxStandinModel({ inputSize: entry.inputSize ?? 640 }) };
  }
  return null;
}

/**
 * What the model engine takes from the stand-ins. Production code reaches it
 * only through `await import` in the test profile (src/models/loadStandins.ts).
 */
export interface Standins {
  root(modelsDir: string): string;
  ensure(entry: ModelEntry, root: string): string;
  detector(entry: ModelEntry): DetectorStandin | null;
}

export const standins: Standins = { root: standinRoot, ensure: ensureStandin, detector: detectorStandin };
