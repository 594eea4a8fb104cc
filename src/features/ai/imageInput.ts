/**
 * Turns the `image` string of an AI request (describe, tag, embeddings, edit)
 * into image bytes: a base64 data URI, one of this server's own file URLs (read
 * from disk), or a public http(s) URL fetched behind the SSRF guard of
 * ./netGuard.ts. The bytes are then checked with sharp: decodable, and in an
 * accepted format.
 *
 * Fetching uses node:http / node:https directly (./httpHop.ts) so that (a) the connection goes
 * to the address that was validated (a pinned `lookup`, no second DNS query,
 * hence no DNS rebinding), (b) redirects are followed by hand and every hop is
 * re-validated, and (c) the body is streamed and cut off at `maxBytes`.
 */
import { open } from 'node:fs/promises';
import sharp, { type Metadata } from 'sharp';
import { DomainError, invalid, unprocessable } from '../../platform/errors.js';
import { assertPublicHost, defaultLookup, type LookupFn } from './netGuard.js';
import { httpFetchHop, REDIRECT_STATUSES, timedOut, tooLarge, type HopFetcher } from './httpHop.js';

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'tiff' | 'avif';

export const ALL_IMAGE_FORMATS: readonly ImageFormat[] = ['jpeg', 'png', 'webp', 'gif', 'tiff', 'avif'];

export const IMAGE_INPUT_DEFAULTS = {
  maxBytes: 25 * 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 5,
  /** sharp's own default `limitInputPixels` (0x3FFF * 0x3FFF). */
  maxPixels: 268_402_689,
} as const;

export interface ImageInputOptions {
  /** Allow hosts that are or resolve to loopback/private/link-local addresses. */
  allowPrivate: boolean;
  /** Largest accepted image, in bytes (default 25 MB). */
  maxBytes?: number;
  /** Deadline for the whole fetch: DNS, connect, headers, body, all redirect hops (default 15 s). */
  timeoutMs?: number;
  /** Redirects followed before giving up (default 5). */
  maxRedirects?: number;
  /** Formats accepted after decoding (default: all of ALL_IMAGE_FORMATS). */
  allowedFormats?: ImageFormat[];
  /** Largest accepted width × height (default: sharp's limit, ~268 MP). */
  maxPixels?: number;
  /**
   * Maps a URL of this server's own files to a local path (or null when it is
   * not one). Called before any network access, for the URL and for every
   * redirect target; such files are read from disk, never fetched over HTTP.
   * A local copy (a blob from S3) comes with `release`, called once it is read.
   */
  resolveOwnFile?: (url: URL) => Promise<string | { path: string; release(): Promise<void> } | null>;
  /** DNS resolution, injectable for tests (default: dns.promises.lookup, all: true). */
  lookup?: LookupFn;
}

export interface LoadedImage {
  buffer: Buffer;
  /** One of ImageFormat (sharp's `heif` + av1 is reported as `avif`). */
  format: string;
  /** Displayed size, i.e. after EXIF orientation is applied. */
  width: number;
  height: number;
  source: 'data-uri' | 'url' | 'own-file';
}

const NOT_A_URL = 'image must be an http(s) URL or a data URI';

/** Loads, guards and validates the client's `image` input. */
export async function loadImageInput(input: string, opts: ImageInputOptions): Promise<LoadedImage> {
  if (typeof input !== 'string' || input.trim() === '') throw invalid('image is required');
  const text = input.trim();
  const maxBytes = opts.maxBytes ?? IMAGE_INPUT_DEFAULTS.maxBytes;

  if (/^data:/i.test(text)) {
    const buffer = decodeDataUri(text, maxBytes);
    return { buffer, ...(await inspectImage(buffer, opts)), source: 'data-uri' };
  }

  const url = parseHttpUrl(text);
  const own = await readOwnFile(url, opts, maxBytes);
  if (own) return { buffer: own, ...(await inspectImage(own, opts)), source: 'own-file' };

  const fetched = await fetchImageUrl(url, opts);
  const source = fetched.ownFile ? 'own-file' : 'url';
  return { buffer: fetched.buffer, ...(await inspectImage(fetched.buffer, opts)), source };
}

// ---------------------------------------------------------------------------
// Data URIs
// ---------------------------------------------------------------------------

/** Decodes `data:image/<subtype>[;params];base64,<payload>`. */
export function decodeDataUri(uri: string, maxBytes: number): Buffer {
  const comma = uri.indexOf(',');
  if (comma < 0) throw invalid('image data URI is malformed: missing ","');
  const header = uri.slice(5, comma).trim().toLowerCase();
  const params = header.split(';').map((p) => p.trim());
  if (!/^image\/[a-z0-9.+-]+$/.test(params[0] ?? '')) {
    throw invalid('image data URI must have an image/* media type, e.g. data:image/png;base64,...');
  }
  if (!params.includes('base64')) throw invalid('image data URI must be base64-encoded (data:image/...;base64,...)');

  const payload = uri.slice(comma + 1).replace(/\s+/g, '');
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  if (Math.floor((payload.length * 3) / 4) - padding > maxBytes) throw tooLarge(maxBytes);
  if (payload === '' || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(payload) || payload.length % 4 === 1) {
    throw invalid('image data URI is not valid base64');
  }
  const buffer = Buffer.from(payload, 'base64');
  if (buffer.length === 0) throw invalid('image data URI is not valid base64');
  return buffer;
}

// ---------------------------------------------------------------------------
// URLs
// ---------------------------------------------------------------------------

function parseHttpUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw invalid(NOT_A_URL);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(NOT_A_URL);
  return url;
}

async function readOwnFile(url: URL, opts: ImageInputOptions, maxBytes: number): Promise<Buffer | null> {
  if (!opts.resolveOwnFile) return null;
  const own = await opts.resolveOwnFile(url);
  if (!own) return null;
  const file = typeof own === 'string' ? { path: own, release: async () => undefined } : own;
  try {
    return await readLocalImage(file.path, maxBytes);
  } finally {
    await file.release();
  }
}

async function readLocalImage(file: string, maxBytes: number): Promise<Buffer> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw unprocessable(`could not read image file: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw unprocessable('could not read image file: not a regular file');
    if (stat.size > maxBytes) throw tooLarge(maxBytes);
    const buffer = await handle.readFile();
    if (buffer.length > maxBytes) throw tooLarge(maxBytes);
    return buffer;
  } finally {
    await handle.close();
  }
}

/**
 * Fetches `url` following redirects by hand. Before each hop — the first and
 * every redirect target — the own-file resolver is consulted and the host is
 * re-validated with assertPublicHost; the fetcher only ever gets validated
 * addresses. `fetchHop` is injectable so the redirect policy can be tested
 * without real network hops.
 */
export async function fetchImageUrl(
  url: URL,
  opts: ImageInputOptions,
  fetchHop: HopFetcher = httpFetchHop,
): Promise<{ buffer: Buffer; url: URL; ownFile: boolean }> {
  const maxBytes = opts.maxBytes ?? IMAGE_INPUT_DEFAULTS.maxBytes;
  const maxRedirects = opts.maxRedirects ?? IMAGE_INPUT_DEFAULTS.maxRedirects;
  const timeoutMs = opts.timeoutMs ?? IMAGE_INPUT_DEFAULTS.timeoutMs;
  const lookup = opts.lookup ?? defaultLookup;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(timedOut()), timeoutMs);
  const { signal } = controller;
  try {
    let current = url;
    for (let redirects = 0; ;) {
      if (redirects > 0) {
        const own = await abortable(readOwnFile(current, opts, maxBytes), signal);
        if (own) return { buffer: own, url: current, ownFile: true };
      }
      const addresses = await abortable(assertPublicHost(current.hostname, lookup, opts.allowPrivate), signal);
      const res = await fetchHop({ url: current, addresses, signal, maxBytes });

      if (REDIRECT_STATUSES.has(res.status) && res.location) {
        redirects += 1;
        if (redirects > maxRedirects) throw invalid(`image URL redirected too many times (more than ${maxRedirects})`);
        let next: URL;
        try {
          next = new URL(res.location, current);
        } catch {
          throw unprocessable('could not fetch image: invalid redirect location');
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw invalid('image URL redirected to a URL that is not http(s)');
        }
        current = next;
        continue;
      }
      if (res.status < 200 || res.status >= 300) {
        throw unprocessable(`could not fetch image: upstream answered HTTP ${res.status}`);
      }
      return { buffer: res.body ?? Buffer.alloc(0), url: current, ownFile: false };
    }
  } catch (err) {
    if (signal.aborted && !(err instanceof DomainError)) throw timedOut();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------

async function inspectImage(
  buffer: Buffer,
  opts: ImageInputOptions,
): Promise<{ format: string; width: number; height: number }> {
  let meta: Metadata;
  try {
    meta = await sharp(buffer).metadata();
  } catch (err) {
    throw unprocessable(`image could not be decoded: ${(err as Error).message}`);
  }
  let format: string = meta.format;
  if (format === 'heif') format = meta.compression === 'av1' ? 'avif' : 'heic';
  if (format === 'jpg') format = 'jpeg';
  if (format === 'tif') format = 'tiff';
  const allowed = opts.allowedFormats ?? ALL_IMAGE_FORMATS;
  if (!(allowed as readonly string[]).includes(format)) {
    throw unprocessable(`image format ${format} is not accepted here (accepted: ${allowed.join(', ')})`);
  }
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw unprocessable('image could not be decoded: no dimensions');
  const maxPixels = opts.maxPixels ?? IMAGE_INPUT_DEFAULTS.maxPixels;
  if (width * height > maxPixels) {
    throw unprocessable(`image dimensions ${width}x${height} exceed the limit of ${maxPixels} pixels`);
  }
  return { format, width, height };
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** Rejects with the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
