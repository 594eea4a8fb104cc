/**
 * One file's download for src/models/fetch.ts: streamed into `<dest>.part` while
 * being hashed, resumable, abortable.
 *
 * Resuming: a `.part` left by an interrupted download (a network error, a
 * shutdown, a killed process) is continued with a `Range: bytes=<size>-`
 * request; its bytes already there are hashed first, so the digest covers the
 * whole file. A server that ignores the range (200) sends the file again from
 * the start. A `.part` is claimed by a `.part.lock` naming the process, so two
 * fetches of the same file (the server's own and `npm run models -- fetch`)
 * never write into one file.
 */
import { createHash, type Hash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** Abort a download that receives nothing for this long. */
const IDLE_TIMEOUT_MS = 60_000;

/** A download that must not be retried as it is: the file is wrong or absent, not the network. */
export class DownloadRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DownloadRefused';
  }
}

/** Bytes of one file so far (a resumed download counts what the `.part` held) and its size when the server said. */
export type ProgressListener = (done: number, total: number | null) => void;

export interface DownloadOptions {
  signal?: AbortSignal;
  onProgress?: ProgressListener;
  /** Checks a URL before each request (every redirect hop). */
  checkUrl(url: URL): void;
}

/** GET with redirects followed by hand, so that every hop is checked. */
async function get(url: URL, signal: AbortSignal, opts: DownloadOptions, range: number): Promise<Response> {
  let current = url;
  const headers: Record<string, string> = { 'user-agent': 'lumen-library-models' };
  if (range > 0) headers.range = `bytes=${range}-`;
  for (let hop = 0; hop <= 5; hop++) {
    opts.checkUrl(current);
    const res = await fetch(current, { redirect: 'manual', signal, headers });
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

async function hashInto(hash: Hash, file: string): Promise<void> {
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
}

/** The offset a 206 answer starts at (`Content-Range: bytes <start>-<end>/<size>`), or null. */
function rangeStart(res: Response): number | null {
  const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(res.headers.get('content-range') ?? '');
  return m ? Number(m[1]) : null;
}

const partBusy = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Claims `<part>.lock` for this process; throws when another live process (or this one) is writing that file. */
function claim(part: string): () => void {
  const lock = `${part}.lock`;
  if (partBusy.has(part)) throw new Error(`${part} is already being downloaded by this process`);
  if (existsSync(lock)) {
    const pid = Number(readFileSync(lock, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid))
      throw new Error(`${part} is being downloaded by process ${pid}; try again when it is done`);
  }
  writeFileSync(lock, String(process.pid));
  partBusy.add(part);
  return () => {
    partBusy.delete(part);
    rmSync(lock, { force: true });
  };
}

/**
 * Streams a URL into `part` (resuming what is there), returning the whole file's sha256 and size;
 * null when the server says 404. The `.part` is kept when the download breaks off, for the next try.
 */
export async function downloadToPart(
  url: URL,
  part: string,
  opts: DownloadOptions,
): Promise<{ sha256: string; bytes: number } | null> {
  const release = claim(part);
  const controller = new AbortController();
  const signal = opts.signal ? AbortSignal.any([controller.signal, opts.signal]) : controller.signal;
  let idle = setTimeout(() => controller.abort(new Error('no data for 60 s')), IDLE_TIMEOUT_MS);
  try {
    const have = existsSync(part) ? statSync(part).size : 0;
    let res = await get(url, signal, opts, have);
    if (res.status === 416) {
      // The part is no prefix of the file (it changed, or the part is whole): start again.
      await res.body?.cancel();
      rmSync(part, { force: true });
      res = await get(url, signal, opts, 0);
    }
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      const message = `HTTP ${res.status} for ${url.href}`;
      throw res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429
        ? new DownloadRefused(message)
        : new Error(message);
    }
    const resumed = res.status === 206 && rangeStart(res) === have && have > 0;
    if (res.status === 206 && !resumed) {
      await res.body?.cancel();
      rmSync(part, { force: true });
      throw new Error(`unexpected partial answer for ${url.href}; starting again on the next try`);
    }
    const hash = createHash('sha256');
    if (resumed) await hashInto(hash, part);
    let bytes = resumed ? have : 0;
    const length = Number(res.headers.get('content-length'));
    const total = Number.isFinite(length) && res.headers.has('content-length') ? bytes + length : null;
    opts.onProgress?.(bytes, total);
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        clearTimeout(idle);
        idle = setTimeout(() => controller.abort(new Error('no data for 60 s')), IDLE_TIMEOUT_MS);
        hash.update(chunk);
        bytes += chunk.length;
        opts.onProgress?.(bytes, total);
        done(null, chunk);
      },
    });
    const out = createWriteStream(part, { flags: resumed ? 'a' : 'w' });
    await pipeline(Readable.fromWeb(res.body as WebReadableStream), tap, out, { signal });
    return { sha256: hash.digest('hex'), bytes };
  } finally {
    clearTimeout(idle);
    release();
  }
}
