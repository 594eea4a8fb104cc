import type Koa from 'koa';
import { koaBody } from 'koa-body';
import { once } from 'node:events';
import type { WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { insufficientStorage, isDiskFull } from '../platform/diskSpace.js';
import { DomainError, invalid } from '../platform/errors.js';

/** formidable's code for a request whose connection closed before its end (FormidableError.js `aborted`). */
const FORMIDABLE_ABORTED = 1002;

/** formidable's codes for the refusals that are not about size (FormidableError.js). */
const FORMIDABLE_REFUSALS: Record<number, (limits: { maxFields: number }) => string> = {
  1007: ({ maxFields }) => `too many form fields: at most ${maxFields} text fields are read`,
  1015: () => 'more than one file: an upload carries exactly one file (and at most its XMP sidecar, part "sidecar")',
};

export interface MultipartOptions {
  /** The blob store's scratch folder (same file system as the store: a move is a rename). */
  tmpDir: string;
  maxUploadBytes: number;
  /** A client silent this long mid-upload is dropped (UPLOAD_IDLE_SECONDS). */
  uploadIdleSeconds: number;
  /** Free space (platform/diskSpace.ts): an upload whose declared size would not fit is refused before its body. */
  space?: { ensureRoom(bytes: number): Promise<void>; reportFull(err: unknown): void };
  /**
   * The setting maxUploadBytes comes from, when the 413 should name it (MAX_MODEL_BUNDLE_BYTES): the refusal then
   * says so, and a request whose declared length is over the limit is refused before its body is read.
   */
  limitName?: string;
}

/** What a multipart body may carry beside its file: the form's fields and part headers (maxFieldsSize). */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

/** The multipart parser for upload routes: one file (and a sidecar) at most, into the store's scratch folder, always cleaned up. */
export function multipartBody(config: MultipartOptions): Koa.Middleware {
  const formidableOptions = {
    uploadDir: config.tmpDir,
    maxFileSize: config.maxUploadBytes,
    maxTotalFileSize: config.maxUploadBytes,
    // The file and, optionally, its XMP sidecar (the upload route refuses two files otherwise).
    maxFiles: 2,
    maxFields: 20,
    maxFieldsSize: 1024 * 1024,
    hashAlgorithm: 'sha256' as const,
    keepExtensions: false,
  };
  type Started = { filepath: string; _writeStream?: WriteStream };
  const { limitName } = config;
  const tooLarge = () =>
    new DomainError('too_large', `the file is larger than ${limitName} (${config.maxUploadBytes} bytes)`);
  return async (ctx, next) => {
    if (limitName && Number(ctx.get('content-length')) > config.maxUploadBytes + FORM_OVERHEAD_BYTES) throw tooLarge();
    // The scratch files this request's parse starts. On a refusal formidable may still open one after its own
    // clean-up (a second file begins after the first was refused): close each stream, then remove its file.
    const started: Started[] = [];
    const multipart = koaBody({
      multipart: true,
      json: false,
      urlencoded: false,
      text: false,
      formidable: { ...formidableOptions, onFileBegin: (_name, file) => void started.push(file as unknown as Started) },
    });
    // A client that goes silent mid-upload (no FIN: a lost network) would hold the request, its file handle and
    // its scratch file for ever (requests have no overall timeout: big uploads are slow). Silence ends it.
    // Once the body is read the handler may take its time (probing a long video): the timer stops there.
    ctx.req.setTimeout(config.uploadIdleSeconds * 1000, () => ctx.req.destroy());
    await refuseWhatWouldNotFit(ctx, config);
    let read = false;
    try {
      await multipart(ctx, () => {
        read = true;
        ctx.req.setTimeout(0);
        return next();
      });
    } catch (err) {
      const code = (err as { code?: number }).code ?? -1;
      const refusal = FORMIDABLE_REFUSALS[code];
      if (refusal) throw invalid(refusal(formidableOptions));
      // The scratch file (or the store, or the database, once read) hit a full disk: 507, and background jobs
      // pause until space frees.
      if (isDiskFull(err) && !(err instanceof DomainError)) {
        config.space?.reportFull(err);
        ctx.set('Connection', 'close');
        throw insufficientStorage();
      }
      // A refusal the parser answers itself (4xx: too large, malformed) keeps its status: it stopped reading, so
      // the request may look closed, but the client still reads the answer. Only a failure without one follows.
      const httpCode = (err as { httpCode?: number }).httpCode ?? 500;
      if (httpCode === 413 && limitName) throw tooLarge();
      if (httpCode >= 400 && httpCode < 500) throw err;
      // The client went away mid-upload: nobody reads the answer, and it is not a server error (issue #29).
      if (!read && (code === FORMIDABLE_ABORTED || ctx.req.destroyed)) {
        throw invalid('the client closed the upload before its end');
      }
      throw err;
    } finally {
      // Whatever the handler did not move into the store is scratch: remove it.
      const files = Object.values(ctx.request.files ?? {}).flat() as unknown as Array<{ filepath: string }>;
      await Promise.all(started.map((f) => closeStream(f._writeStream)));
      const paths = new Set([...started, ...files].map((f) => f.filepath));
      await Promise.all([...paths].map((f) => rm(f, { force: true })));
    }
  };
}

/** 507 before reading a body whose declared length (the whole request: near enough) would not leave the reserve. */
async function refuseWhatWouldNotFit(ctx: Koa.Context, { space, maxUploadBytes }: MultipartOptions): Promise<void> {
  const declared = Number(ctx.get('content-length'));
  // Over MAX_UPLOAD_BYTES: the parser's 413 says what the client can change; the disk is not the problem.
  if (!space || declared > maxUploadBytes) return;
  try {
    await space.ensureRoom(Number.isFinite(declared) && declared > 0 ? declared : 0);
  } catch (err) {
    ctx.set('Connection', 'close'); // the body is not read: the client should not send it on this connection
    throw err;
  }
}

async function closeStream(stream: WriteStream | undefined): Promise<void> {
  if (!stream || stream.closed) return;
  const closed = once(stream, 'close').catch(() => undefined);
  stream.destroy();
  await closed;
}
