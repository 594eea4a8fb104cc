/**
 * HEIC/HEIF decoding for a sharp without an HEVC decoder (its prebuilt
 * binaries leave HEVC out for patent reasons): libheif compiled to
 * WebAssembly (`heic-decode` over `libheif-js`, the libheif the best-known
 * self-hosted libraries use) decodes the primary image to RGBA, which sharp
 * then resizes and encodes like any other pixels.
 *
 * WebAssembly runs on the thread that calls it, so decodes run in worker
 * threads, never on the HTTP event loop: at most HEIC_CONCURRENCY of them, kept
 * between decodes (the WebAssembly module is compiled once per thread, not per
 * image) and stopped after HEIC_IDLE_MS without work (each holds its last
 * image's memory). Limits: the pixel count is checked from the header before
 * (imageSources.ts), and a decode that takes longer than its time limit is
 * stopped with its thread.
 */
import { deserializeError, unprocessable } from '../../platform/errors.js';
import { spawnWorker, stopWorker } from '../../platform/spawnWorker.js';
import type { Worker } from 'node:worker_threads';
import type { HeicReply, HeicRequest } from './protocol.js';

/** Decoded pixels ready for sharp's `raw` input. */
export interface DecodedPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 4;
}

/** Default time limit of one decode: a 12-megapixel phone photo takes about a second. */
export const HEIC_TIMEOUT_MS = 60_000;
/** Decoding threads at most: each holds its image's RGBA (48 MB for 12 megapixels) and libheif's buffers. */
export const HEIC_CONCURRENCY = 2;
/** A thread without work for this long is stopped (its memory given back). */
export const HEIC_IDLE_MS = 30_000;

interface Thread {
  worker: Worker;
  idleTimer: NodeJS.Timeout | null;
  retired: boolean;
}

const idle: Thread[] = [];
const waiting: Array<(t: Thread) => void> = [];
let live = 0;
let nextId = 1;

function spawnThread(): Thread {
  const t: Thread = { worker: spawnWorker(import.meta.url, 'worker', null), idleTimer: null, retired: false };
  live++;
  t.worker.on('error', () => {}); // a request in flight hears it through its own listener
  t.worker.once('exit', () => retire(t));
  return t;
}

/** A thread for one decode: an idle one, a new one while fewer than HEIC_CONCURRENCY run, else the next freed. */
function acquire(): Promise<Thread> {
  const t = idle.pop();
  if (t) {
    if (t.idleTimer) clearTimeout(t.idleTimer);
    t.worker.ref();
    return Promise.resolve(t);
  }
  if (live < HEIC_CONCURRENCY) return Promise.resolve(spawnThread());
  return new Promise((resolve) => waiting.push(resolve));
}

/** A thread whose decode is over goes to the next waiting decode, or waits idle (not holding the process open). */
function release(t: Thread): void {
  const next = waiting.shift();
  if (next) return next(t);
  t.worker.unref();
  t.idleTimer = setTimeout(() => retire(t), HEIC_IDLE_MS);
  t.idleTimer.unref();
  idle.push(t);
}

/** Stops a thread (timed out, crashed or idle too long); a waiting decode gets a new one. */
function retire(t: Thread): void {
  if (t.retired) return;
  t.retired = true;
  live--;
  if (t.idleTimer) clearTimeout(t.idleTimer);
  const at = idle.indexOf(t);
  if (at >= 0) idle.splice(at, 1);
  void stopWorker(t.worker);
  const next = waiting.shift();
  if (next) next(spawnThread());
}

/**
 * Decodes the primary image of a HEIC/HEIF file (grid, alpha, 10-bit; rotation and mirroring applied).
 * Throws 'unprocessable' with a reason for a file libheif cannot decode or that takes too long.
 */
export async function decodeHeic(path: string, timeoutMs = HEIC_TIMEOUT_MS): Promise<DecodedPixels> {
  return decodeOn(await acquire(), path, timeoutMs);
}

function decodeOn(t: Thread, path: string, timeoutMs: number): Promise<DecodedPixels> {
  const id = nextId++;
  return new Promise<DecodedPixels>((resolve, reject) => {
    let settled = false;
    const finish = (healthy: boolean, outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      t.worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (healthy) release(t);
      else retire(t);
      outcome();
    };
    const onMessage = (reply: HeicReply) => {
      if (reply.id === id) finish(true, () => settle(reply, resolve, reject));
    };
    const onError = (err: Error) => finish(false, () => reject(failed(err.message)));
    const onExit = (code: number) => finish(false, () => reject(failed(`the decoder stopped (exit code ${code})`)));
    const timer = setTimeout(
      () => finish(false, () => reject(unprocessable(`the HEIC image could not be decoded in ${timeoutMs / 1000} s`))),
      timeoutMs,
    );
    t.worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    t.worker.postMessage({ id, path } satisfies HeicRequest);
  });
}

function settle(reply: HeicReply, resolve: (p: DecodedPixels) => void, reject: (e: Error) => void): void {
  if (!reply.ok) {
    reject(deserializeError(reply.error, (message) => failed(message)));
    return;
  }
  if (!(reply.width > 0 && reply.height > 0) || reply.data.byteLength !== reply.width * reply.height * 4) {
    reject(failed('the decoder returned no picture'));
    return;
  }
  resolve({ data: Buffer.from(reply.data), width: reply.width, height: reply.height, channels: 4 });
}

/** libheif's words, shortened: "HEIF image not found", "Invalid input: No 'meta' box" … */
function failed(message: string) {
  const line = message
    .split('\n')[0]
    .replace(/\/[^\s:]+/g, '<file>')
    .slice(0, 160);
  return unprocessable(`the HEIC image could not be decoded (${line || 'unknown error'})`);
}
