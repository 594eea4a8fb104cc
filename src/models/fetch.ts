/**
 * Downloads a catalog model from the Hugging Face hub: when the user runs
 * `npm run models -- fetch`, or when the server fetches the default profile's
 * missing models in the background (src/models/provisioner.ts; AUTO_FETCH_MODELS).
 *
 * Each file is streamed to `<file>.part` beside its destination while being
 * hashed (src/models/download.ts: resumable after an interruption), checked
 * against the known or recorded sha256 (recording it on first fetch), and only
 * then renamed into place: a half-downloaded or tampered file never sits where
 * the loader would read it. A file failing its checksum is deleted, `.part` and all.
 *
 * Only https is used, at every redirect hop; plain http is allowed for
 * loopback hosts alone, so tests can serve files from 127.0.0.1 by setting
 * MODEL_HUB_URL.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { modelFolder, type ModelEntry } from './catalog.js';
import { expectedChecksum, hashFile, lockKey, readLock, writeLock } from './checksums.js';
import { DownloadRefused, downloadToPart } from './download.js';

export { DownloadRefused } from './download.js';

export const DEFAULT_HUB_URL = 'https://huggingface.co';

export interface FetchOptions {
  modelsDir: string;
  hubUrl?: string;
  log?: (line: string) => void;
  /** Stops the download; its `.part` stays for the next fetch to resume. */
  signal?: AbortSignal;
  /** Called as bytes arrive, and once for each file found already present (done = total = its size). */
  onProgress?: (file: string, done: number, total: number | null) => void;
}

export type FileOutcome = 'downloaded' | 'present' | 'absent-optional';

export interface FetchResult {
  name: string;
  files: { path: string; outcome: FileOutcome; sha256?: string; bytes?: number; recorded: boolean }[];
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127\.\d+\.\d+\.\d+$/.test(hostname)
  );
}

/** Throws unless the URL is https, or http to a loopback address. */
export function checkDownloadUrl(url: URL): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return;
  throw new Error(
    `refusing to download from ${url.origin}: only https is allowed (plain http only to loopback, for tests)`,
  );
}

export function fileUrl(hubUrl: string, entry: ModelEntry, file: string): URL {
  const base = hubUrl.replace(/\/+$/, '');
  const encoded = file.split('/').map(encodeURIComponent).join('/');
  return new URL(`${base}/${entry.repo}/resolve/${encodeURIComponent(entry.revision)}/${encoded}`);
}

/**
 * Fetches every file of `entry` that is missing (or fails its checksum).
 * Throws DownloadRefused on a checksum mismatch (the download deleted, the previous file, if any, left in
 * place), a file the hub lacks or a local model; any other error (network, abort) leaves the `.part` to resume.
 */
export async function fetchModel(entry: ModelEntry, opts: FetchOptions): Promise<FetchResult> {
  if (entry.package) return { name: entry.name, files: [] }; // its files ship inside an installed npm package
  if (!entry.repo && entry.files.some((f) => !f.url)) {
    throw new DownloadRefused(
      `model ${entry.name} is a local model (no hub repository): put its files in ${modelFolder(entry, opts.modelsDir)}`,
    );
  }
  const hubUrl = opts.hubUrl ?? DEFAULT_HUB_URL;
  const log = opts.log ?? (() => undefined);
  const folder = modelFolder(entry, opts.modelsDir);
  const result: FetchResult = { name: entry.name, files: [] };

  for (const file of entry.files) {
    const lock = readLock(opts.modelsDir); // re-read: another fetch may have recorded meanwhile
    const expected = expectedChecksum(entry, file, lock);
    const dest = path.join(folder, file.path);
    const record = (sha256: string, bytes: number) => {
      if (expected.source !== 'none') return false;
      lock.files[lockKey(entry, file)] = { sha256, bytes, recordedAt: new Date().toISOString() };
      writeLock(opts.modelsDir, lock);
      return true;
    };

    if (existsSync(dest)) {
      const have = await hashFile(dest);
      if (expected.sha256 === null || have.sha256 === expected.sha256) {
        opts.onProgress?.(file.path, have.bytes, have.bytes);
        result.files.push({ path: file.path, outcome: 'present', ...have, recorded: record(have.sha256, have.bytes) });
        continue;
      }
      log(`${entry.name}: ${file.path} fails its ${expected.source} checksum; downloading again`);
    }

    mkdirSync(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.part`;
    const url = file.url ? new URL(file.url) : fileUrl(hubUrl, entry, file.path);
    checkDownloadUrl(url);
    log(`${entry.name}: fetching ${file.path}`);
    const started = performance.now();
    let keepPart = true;
    try {
      const got = await downloadToPart(url, tmp, {
        signal: opts.signal,
        checkUrl: checkDownloadUrl,
        onProgress: opts.onProgress && ((done, total) => opts.onProgress!(file.path, done, total)),
      });
      if (!got) {
        if (file.optional) {
          result.files.push({ path: file.path, outcome: 'absent-optional', recorded: false });
          continue;
        }
        throw new DownloadRefused(`${entry.name}: ${file.path} not found at ${url.href}`);
      }
      if (expected.sha256 !== null && got.sha256 !== expected.sha256) {
        keepPart = false;
        throw new DownloadRefused(
          `${entry.name}: checksum mismatch for ${file.path}: expected ${expected.sha256} (${expected.source}), got ${got.sha256}` +
            (expected.source === 'recorded'
              ? ' — if the upstream file changed on purpose, remove its line from checksums.lock.json'
              : ''),
        );
      }
      renameSync(tmp, dest);
      const seconds = (performance.now() - started) / 1000;
      const size = `${(got.bytes / 2 ** 20).toFixed(1)} MB in ${seconds.toFixed(1)} s`;
      log(`${entry.name}: ${file.path} ${size}, sha256 ${got.sha256.slice(0, 12)}…`);
      result.files.push({ path: file.path, outcome: 'downloaded', ...got, recorded: record(got.sha256, got.bytes) });
    } catch (err) {
      // A broken-off download is resumed by the next fetch; a refused file is never kept.
      if (err instanceof DownloadRefused) keepPart = false;
      throw err;
    } finally {
      if (!keepPart) rmSync(tmp, { force: true });
    }
  }
  return result;
}
