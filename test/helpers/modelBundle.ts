/**
 * A model bundle built at test time from a stand-in (issue #28's import by upload): a small CLIP
 * (src/models/standins/embedder.ts) declared in catalog.local.json as the default profile's only role (`embed`),
 * its files written into a source models folder and packed as `npm run models -- pack` does. The target models
 * folder holds the same catalog without the files, so a server on it (MODEL_PROFILE=default, no download)
 * analyses uploads with their embedding stages waiting for the model until the bundle is imported.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packBundle } from '../../src/models/bundle/index.js';
import { loadCatalog } from '../../src/models/catalog.js';
import { readLock } from '../../src/models/checksums.js';
import { embedderStandinFiles } from '../../src/models/standins/embedder.js';

export const BUNDLE_MODEL = 'tiny-clip';

function writeCatalog(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const roles = Object.fromEntries(
    ['embedFast', 'caption', 'prompt', 'detect', 'detectFaces', 'embedFaces', 'ocr', 'upscale']
      .concat(['removeBackground', 'generate'])
      .map((r) => [r, null]),
  );
  const entry = {
    name: BUNDLE_MODEL,
    task: 'embed',
    arch: 'clip',
    dir: BUNDLE_MODEL,
    dims: 512,
    licence: 'MIT',
    approxSizeMB: 1,
    calibration: { textToImage: { lo: 0.05, hi: 0.85 }, imageToImage: { lo: 0.5, hi: 1.0 } },
  };
  const catalog = { version: 1, roles: { default: { embed: BUNDLE_MODEL, ...roles } }, models: [entry] };
  writeFileSync(path.join(dir, 'catalog.local.json'), JSON.stringify(catalog, null, 2));
}

/** Packs the stand-in into `<root>/bundle.tar`; `<root>/target` is the models folder waiting for it. */
export async function standinBundle(
  root: string,
): Promise<{ bundle: string; modelsDir: string; env: Record<string, string> }> {
  const source = path.join(root, 'source');
  writeCatalog(source);
  for (const [rel, data] of embedderStandinFiles({ arch: 'clip', dims: 512, seed: BUNDLE_MODEL })) {
    mkdirSync(path.dirname(path.join(source, BUNDLE_MODEL, rel)), { recursive: true });
    writeFileSync(path.join(source, BUNDLE_MODEL, rel), Buffer.from(data));
  }
  const bundle = path.join(root, 'bundle.tar');
  const entry = loadCatalog({ modelsDir: source }).models.get(BUNDLE_MODEL)!;
  await packBundle([entry], bundle, { modelsDir: source, lock: readLock(source) });
  const modelsDir = path.join(root, 'target');
  writeCatalog(modelsDir);
  return { bundle, modelsDir, env: { MODEL_PROFILE: 'default', AUTO_FETCH_MODELS: '0', MODELS_DIR: modelsDir } };
}
