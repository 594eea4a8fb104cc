/**
 * Downloads a catalog model from the Hugging Face hub — only when the user runs
 * `npm run models -- fetch`; the server itself never downloads anything.
 *
 * Each file is streamed to a temporary file beside its destination while being
 * hashed, checked against the known or recorded sha256 (recording it on first
 * fetch), and only then renamed into place: a half-downloaded or tampered
 * file never sits where the loader would read it.
 *
 * Only https is used, at every redirect hop; plain http is allowed for
 * loopback hosts alone, so tests can serve files from 127.0.0.1 by setting
 * MODEL_HUB_URL.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { modelFolder, type ModelEntry } from './catalog.js';
import { expectedChecksum, hashFile, lockKey, readLock, writeLock } from './checksums.js';

export const DEFAULT_HUB_URL = 'https://huggingface.co';
/** Abort a download that receives nothing for this long. */
const IDLE_TIMEOUT_MS = 60_000;

export interface FetchOptions {
  modelsDir: string;
  hubUrl?: string;
  log?: (line: string) => void;
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

/** GET with redirects followed by hand, so that every hop is checked. */
async function get(url: URL, signal: AbortSignal): Promise<Response> {
  let current = url;
  for (let hop = 0; hop <= 5; hop++) {
    checkDownloadUrl(current);
    const res = await fetch(current, { redirect: 'manual', signal, headers: { 'user-agent': 'lumen-library-models' } });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      current = new URL(location, current);
      continue;
    }
    return res;
  }
  throw new Error(`too many redirects for ${url.href}`);
}

/** Streams a URL into `tmp`, returning its sha256 and size; null when the server says 404. */
async function download(url: URL, tmp: string): Promise<{ sha256: string; bytes: number } | null> {
  const controller = new AbortController();
  let idle = setTimeout(() => controller.abort(), IDLE_TIMEOUT_MS);
  try {
    const res = await get(url, controller.signal);
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok || !res.body) throw new Error(`HTTP ${res.status} for ${url.href}`);
    const hash = createHash('sha256');
    let bytes = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        clearTimeout(idle);
        idle = setTimeout(() => controller.abort(), IDLE_TIMEOUT_MS);
        hash.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(res.body as WebReadableStream), tap, createWriteStream(tmp));
    return { sha256: hash.digest('hex'), bytes };
  } finally {
    clearTimeout(idle);
  }
}

/**
 * Fetches every file of `entry` that is missing (or fails its checksum).
 * Throws on a checksum mismatch, leaving the previous file (if any) in place.
 */
export async function fetchModel(entry: ModelEntry, opts: FetchOptions): Promise<FetchResult> {
  if (entry.package) return { name: entry.name, files: [] }; // its files ship inside an installed npm package
  if (!entry.repo && entry.files.some((f) => !f.url)) {
    throw new Error(
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
        result.files.push({ path: file.path, outcome: 'present', ...have, recorded: record(have.sha256, have.bytes) });
        continue;
      }
      log(`${entry.name}: ${file.path} fails its ${expected.source} checksum; downloading again`);
    }

    mkdirSync(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.part-${process.pid}`;
    const url = file.url ? new URL(file.url) : fileUrl(hubUrl, entry, file.path);
    checkDownloadUrl(url);
    log(`${entry.name}: fetching ${file.path}`);
    const started = performance.now();
    try {
      const got = await download(url, tmp);
      if (!got) {
        if (file.optional) {
          result.files.push({ path: file.path, outcome: 'absent-optional', recorded: false });
          continue;
        }
        throw new Error(`${entry.name}: ${file.path} not found at ${url.href}`);
      }
      if (expected.sha256 !== null && got.sha256 !== expected.sha256) {
        throw new Error(
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
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  return result;
}
