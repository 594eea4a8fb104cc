/**
 * HEIC/HEIF decoding for a sharp without an HEVC decoder (its prebuilt
 * binaries leave HEVC out for patent reasons): libheif compiled to
 * WebAssembly (`heic-decode` over `libheif-js`, the libheif the best-known
 * self-hosted libraries use) decodes the primary image to RGBA, which sharp
 * then resizes and encodes like any other pixels.
 *
 * WebAssembly runs on the thread that calls it, so each decode runs in a
 * worker thread of its own, never on the HTTP event loop. Limits: the pixel
 * count is checked from the header before (imageProbe.ts), at most
 * HEIC_CONCURRENCY decodes run at once (each holds a full RGBA image), and a
 * decode that takes longer than its time limit is stopped with its thread.
 */
import { deserializeError, unprocessable } from '../../platform/errors.js';
import { spawnWorker, stopWorker } from '../../platform/spawnWorker.js';
import type { HeicReply, HeicRequest } from './protocol.js';

/** Decoded pixels ready for sharp's `raw` input. */
export interface DecodedPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 4;
}

/** Default time limit of one decode: a 12-megapixel phone photo takes about half a second. */
export const HEIC_TIMEOUT_MS = 60_000;
/** Decodes at once: each holds its image's RGBA (48 MB for 12 megapixels) twice while it is handed over. */
export const HEIC_CONCURRENCY = 2;

let running = 0;
const waiting: Array<() => void> = [];

async function slot<T>(run: () => Promise<T>): Promise<T> {
  if (running >= HEIC_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await run();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * Decodes the primary image of a HEIC/HEIF file (grid, alpha, 10-bit; rotation and mirroring applied).
 * Throws 'unprocessable' with a reason for a file libheif cannot decode or that takes too long.
 */
export function decodeHeic(path: string, timeoutMs = HEIC_TIMEOUT_MS): Promise<DecodedPixels> {
  return slot(() => decodeInWorker(path, timeoutMs));
}

function decodeInWorker(path: string, timeoutMs: number): Promise<DecodedPixels> {
  const worker = spawnWorker(import.meta.url, 'worker', { path } satisfies HeicRequest);
  return new Promise<DecodedPixels>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
      void stopWorker(worker);
    };
    const timer = setTimeout(
      () => finish(() => reject(unprocessable(`the HEIC image could not be decoded in ${timeoutMs / 1000} s`))),
      timeoutMs,
    );
    worker.once('message', (reply: HeicReply) => finish(() => settle(reply, resolve, reject)));
    worker.once('error', (err) => finish(() => reject(failed(err.message))));
    worker.once('exit', (code) => finish(() => reject(failed(`the decoder stopped (exit code ${code})`))));
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

/** For tests: whether a decode thread is running now. */
export function heicDecodesRunning(): number {
  return running;
}
