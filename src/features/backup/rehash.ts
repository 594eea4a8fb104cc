import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Services } from '../kernel/services.js';
import { blobSha256 } from '../../files/blobStore.js';
import { createThrottle } from './throttle.js';

/** A blob found wrong, and the item whose row references it. */
export interface Finding {
  mediaId: string;
  blobKey: string;
  role?: string;
}

/**
 * The bit-rot re-hash, saved after every page (`DATA_DIR/integrity/rehash.json`): where the pass under way is
 * (the last item id done; null when no pass is under way), what it read, and the originals it found rotten.
 * A run resumes from the saved position; a finished pass keeps its findings until the next one starts.
 */
export interface RehashState {
  position: string | null;
  startedAt: string;
  completedAt: string | null;
  files: number;
  bytes: number;
  rotten: Finding[];
}

export interface RehashOptions {
  stateFile: string;
  /** Bytes a second at most (0: no limit). */
  rateBytesPerSecond: number;
  /** Stop (saving the position) once this long has passed; the next run goes on from there. */
  maxMs?: number;
  signal?: AbortSignal;
  /** Called after each page, once its position is saved. */
  onProgress?: (state: RehashState) => void;
  /** Items a page (default 200). */
  pageSize?: number;
}

/** The saved state, or null when no re-hash ever ran. */
export async function readRehashState(stateFile: string): Promise<RehashState | null> {
  const text = await readFile(stateFile, 'utf8').catch(() => null);
  if (!text) return null;
  try {
    return JSON.parse(text) as RehashState;
  } catch {
    return null;
  }
}

/**
 * Re-hashes the originals (the files nothing could remake) and compares each with its key, item by item in
 * id order, throttled to the rate, resumable. Derived files are not re-hashed: they can be remade, and the
 * rest of the check finds them missing.
 */
export async function rehashOriginals(
  deps: Pick<Services, 'storage' | 'blobs'>,
  options: RehashOptions,
): Promise<RehashState> {
  const saved = await readRehashState(options.stateFile);
  const state: RehashState =
    saved && saved.position !== null
      ? saved
      : { position: '', startedAt: new Date().toISOString(), completedAt: null, files: 0, bytes: 0, rotten: [] };
  const throttle = createThrottle(options.rateBytesPerSecond, options.signal);
  const until = options.maxMs === undefined ? Infinity : Date.now() + options.maxMs;
  while (state.position !== null && !options.signal?.aborted && Date.now() < until) {
    const page = await deps.storage.media.blobReferences(options.pageSize ?? 200, state.position);
    const originals = new Map(page.references.filter((r) => r.role === 'original').map((r) => [r.blobKey, r]));
    for (const ref of originals.values()) {
      if (options.signal?.aborted) return state; // this page again next time: the saved position is before it
      const read = await hashBlob(deps, ref.blobKey, throttle);
      if (read === null) continue; // missing: the existence check names it
      state.files++;
      state.bytes += read.size;
      if (read.sha256 !== blobSha256(ref.blobKey)) state.rotten.push({ mediaId: ref.mediaId, blobKey: ref.blobKey });
    }
    state.position = page.next;
    if (page.next === null) state.completedAt = new Date().toISOString();
    await saveState(options.stateFile, state);
    options.onProgress?.(state);
  }
  return state;
}

async function hashBlob(
  { blobs }: Pick<Services, 'blobs'>,
  key: string,
  throttle: (bytes: number) => Promise<void>,
): Promise<{ sha256: string; size: number } | null> {
  const opened = await blobs.open(key);
  if (!opened) return null;
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of await opened.read()) {
    const buf = chunk as Buffer;
    hash.update(buf);
    size += buf.length;
    await throttle(buf.length);
  }
  return { sha256: hash.digest('hex'), size };
}

async function saveState(file: string, state: RehashState): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  await writeFile(tmp, JSON.stringify(state));
  await rename(tmp, file);
}
