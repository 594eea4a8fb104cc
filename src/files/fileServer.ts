/**
 * Serves stored blobs at their signed public URLs:
 *   GET|HEAD /files/<sig>/<key>
 *   GET|HEAD /files/<sig>/<key>/<download name>
 *   GET|HEAD /files/out/<sig>/<key>     (temporary outputs: edits, generations)
 *   GET|HEAD /files/s/<linkId>/<sig>/<key>[/<name>]   (a share link visitor's: only while the link is live)
 *
 * No API key is needed: the signature is the permission (see fileUrls.ts).
 * Blobs are content-addressed and never change, so responses are cacheable
 * forever and the content hash is a strong ETag. Single byte ranges are
 * supported because video players seek with them, from the local disk and from
 * S3 alike (a GetObject with the Range). With S3_PRESIGNED_GETS=1 a GET of a
 * library blob is answered with a 302 to a presigned GET straight from the
 * store instead (HEAD and temporary outputs are still served here).
 */
import type { Context, Middleware, Next } from 'koa';
import type { Logger } from '../platform/logger.js';
import type { BlobStore, ByteRange, OpenedBlob } from './blobStore.js';
import { blobExt, blobSha256, isBlobKey } from './blobStore.js';
import { SHARE_URL_SEGMENT, type FileUrls } from './fileUrls.js';
import { RAW_CONTENT_TYPES } from './rawFormats.js';
import { OUTPUT_URL_SEGMENT, type TempOutputs } from './tempOutputs.js';

export type { ByteRange } from './blobStore.js';

/** Content types by stored extension. Only these are ever sent; unknown ones go out as octet-stream. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  tif: 'image/tiff',
  heic: 'image/heic',
  avif: 'image/avif',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  '3gp': 'video/3gpp',
  jxl: 'image/jxl',
  ...RAW_CONTENT_TYPES,
};

export interface FileServerOptions {
  /** The library's blobs (local disk or S3). */
  store: BlobStore;
  urls: FileUrls;
  /** The temporary output area, served under /files/out/. */
  outputs?: TempOutputs;
  logger?: Logger;
  /**
   * Whether a share link is live now (not revoked, not expired): a visitor's URL (`/files/s/<linkId>/…`) is
   * served only then, and answers as an unknown file otherwise. Without it, no visitor URL is served.
   */
  shareLinkLive?: (linkId: string) => Promise<boolean>;
}

/** How long a client may reuse a redirect to a presigned GET (well inside the URL's lifetime). */
const PRESIGNED_REDIRECT_MAX_AGE_S = 300;

/** Koa middleware for `/files/...`; every other path goes on to `next`. */
export function fileServerMiddleware(options: FileServerOptions): Middleware {
  const { store: libraryStore, urls, outputs, logger } = options;
  return async (ctx: Context, next: Next) => {
    if (!ctx.path.startsWith('/files/')) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      return sendError(ctx, 405, 'Method Not Allowed', 'files can only be read with GET or HEAD');
    }

    const parts = ctx.path.slice('/files/'.length).split('/');
    const isOutput = outputs !== undefined && parts[0] === OUTPUT_URL_SEGMENT;
    const shareLink = parts[0] === SHARE_URL_SEGMENT && parts.length > 1 ? parts[1] : null;
    if (isOutput) parts.shift();
    if (shareLink !== null) parts.splice(0, 2);
    if (parts.length === 4 && parts[3] === '') parts.pop(); // a trailing slash
    if (parts.length < 2 || parts.length > 3) return sendError(ctx, 404, 'Not Found', 'file not found');
    const [sig, key, rawName] = parts;
    const signed = isOutput
      ? outputs.verify(sig, key)
      : shareLink !== null
        ? urls.verifyShare(shareLink, sig, key) && (await shareLive(options, shareLink))
        : urls.verify(sig, key);
    if (!isBlobKey(key) || !signed) return sendError(ctx, 404, 'Not Found', 'file not found');
    const store = isOutput ? outputs.store : libraryStore;
    const name = rawName ? decodeName(rawName) : '';
    // A visitor's URL is never handed to the store (a presigned GET would outlive a revocation) nor cached
    // without asking again: every use is checked against the link.
    if (shareLink === null && ctx.method === 'GET' && (await redirectToStore(ctx, store, key, name))) return;

    let blob: OpenedBlob | null;
    try {
      blob = await store.open(key);
    } catch (err) {
      logger?.warn('file open failed', { key, err });
      return sendError(ctx, 503, 'Service Unavailable', 'the file store could not be read; try again');
    }
    if (!blob) return sendError(ctx, 404, 'Not Found', 'file not found');
    let handedOff = false;
    try {
      handedOff = await sendBlob(ctx, blob, key, name);
      if (shareLink !== null) ctx.set('Cache-Control', 'private, no-cache');
    } catch (err) {
      if ((err as { code?: string }).code === 'not_found') return sendError(ctx, 404, 'Not Found', 'file not found');
      logger?.warn('file read failed', { key, err });
      return sendError(ctx, 503, 'Service Unavailable', 'the file store could not be read; try again');
    } finally {
      if (!handedOff) await blob.close().catch(() => undefined);
    }
  };
}

/** Whether the share link is live; a failing lookup counts as not (the visitor gets the unknown file's 404). */
async function shareLive({ shareLinkLive, logger }: FileServerOptions, linkId: string): Promise<boolean> {
  if (!shareLinkLive) return false;
  try {
    return await shareLinkLive(linkId);
  } catch (err) {
    logger?.warn('share link lookup failed', { err });
    return false;
  }
}

/** A 302 to a presigned GET straight from the store, when the store gives one (S3_PRESIGNED_GETS). */
async function redirectToStore(ctx: Context, store: BlobStore, key: string, name: string): Promise<boolean> {
  if (!store.presignedGetUrl) return false;
  const type = CONTENT_TYPES[blobExt(key)] ?? 'application/octet-stream';
  const url = await store.presignedGetUrl(key, {
    contentType: type,
    contentDisposition: name ? contentDisposition(name) : undefined,
  });
  if (!url) return false;
  ctx.set('Cache-Control', `private, max-age=${PRESIGNED_REDIRECT_MAX_AGE_S}`);
  ctx.redirect(url);
  return true;
}

/** Headers, conditional and range handling, then the body; true once the body stream owns the blob. */
async function sendBlob(ctx: Context, blob: OpenedBlob, key: string, name: string): Promise<boolean> {
  const size = blob.size;
  const etag = `"${blobSha256(key)}"`;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('X-Content-Type-Options', 'nosniff');
  // Frames and crops are drawn on canvases by web clients on other origins.
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.type = CONTENT_TYPES[blobExt(key)] ?? 'application/octet-stream';
  if (name) ctx.set('Content-Disposition', contentDisposition(name));

  if (etagMatches(ctx.get('If-None-Match'), etag)) {
    ctx.status = 304;
    return false;
  }

  let range: ByteRange | null = null;
  const rangeHeader = ctx.get('Range');
  const ifRange = ctx.get('If-Range');
  // If-Range with another validator means "the file changed, send it whole".
  if (rangeHeader && (!ifRange || ifRange === etag)) {
    const parsed = parseRange(rangeHeader, size);
    if (parsed === 'unsatisfiable') {
      ctx.set('Content-Range', `bytes */${size}`);
      sendError(ctx, 416, 'Range Not Satisfiable', `the file has ${size} bytes`);
      return false;
    }
    range = parsed;
  }

  const start = range ? range.start : 0;
  const end = range ? range.end : size - 1;
  if (ctx.method === 'HEAD' || size === 0) {
    ctx.status = range ? 206 : 200;
    if (range) ctx.set('Content-Range', `bytes ${start}-${end}/${size}`);
    ctx.length = size === 0 ? 0 : end - start + 1;
    if (size === 0 && ctx.method !== 'HEAD') ctx.body = Buffer.alloc(0);
    return false;
  }
  // Read before the status is set: a blob gone meanwhile is still a clean 404.
  const body = await blob.read({ start, end });
  ctx.status = range ? 206 : 200;
  if (range) ctx.set('Content-Range', `bytes ${start}-${end}/${size}`);
  ctx.body = body;
  ctx.length = end - start + 1;
  return true;
}

/**
 * Parses a Range header against a file size. Returns null to mean "ignore the
 * header and send the whole file" (malformed, several ranges, another unit),
 * 'unsatisfiable' for a well-formed range that lies outside the file.
 */
export function parseRange(header: string, size: number): ByteRange | null | 'unsatisfiable' {
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return null; // includes multi-range requests: serving the whole file is allowed
  const [, a, b] = m;
  if (a === '' && b === '') return null;
  if (a === '') {
    // Suffix range: the last n bytes.
    const n = Number(b);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (b !== '' && Number(b) < start) return null; // syntactically invalid: ignore it
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** Whether an If-None-Match header matches our strong ETag (weak comparison, as RFC 9110 asks for this header). */
function etagMatches(header: string, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return '';
  }
}

/**
 * `inline` with a safe ASCII `filename` (quotes, slashes, control characters
 * removed) and, for names with other characters, an RFC 5987 `filename*`.
 */
export function contentDisposition(name: string): string {
  const cleaned = name
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is stripped from the header value
    .replace(/[\u0000-\u001f\u007f"\\/]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
  if (!cleaned) return 'inline';
  const ascii = cleaned.replace(/[^\x20-\x7e]/g, '_');
  let value = `inline; filename="${ascii}"`;
  if (ascii !== cleaned) {
    const encoded = encodeURIComponent(cleaned).replace(
      /['()*]/g,
      (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase(),
    );
    value += `; filename*=UTF-8''${encoded}`;
  }
  return value;
}

function sendError(ctx: Context, status: number, error: string, message: string): void {
  ctx.status = status;
  ctx.remove('Content-Disposition');
  ctx.remove('Cache-Control');
  ctx.remove('ETag');
  ctx.type = 'application/json';
  ctx.body = { error, message };
}
