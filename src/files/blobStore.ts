/**
 * Content-addressed file storage: the interface every store implements, and what they share.
 *
 * A blob key is `<sha256 hex>.<ext>`: identical uploads share one blob, and a key can never name
 * anything outside the store. Two implementations:
 * - `LocalBlobStore` (localBlobStore.ts): files under `DATA_DIR/files` (the default, `BLOB_STORE=local`);
 * - `S3BlobStore` (s3/s3BlobStore.ts): objects in an S3-compatible bucket (`BLOB_STORE=s3`).
 * Scratch files (uploads in flight, derived files, local copies of blobs) stay on the local disk under
 * `DATA_DIR/tmp` in both.
 *
 * Write order contract with the database: the caller stores the file first and writes the row that
 * references it after. A crash in between leaves at worst an unreferenced blob, which `sweepOrphans`
 * removes later; it never leaves a row pointing at a missing blob.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError } from '../platform/errors.js';

/** A valid blob key: 64 lowercase hex digits, a dot, a short lowercase extension. */
export const BLOB_KEY_RE = /^[0-9a-f]{64}\.[a-z0-9]{2,5}$/;
const EXT_RE = /^[a-z0-9]{2,5}$/;
const SHA256_RE = /^[0-9a-f]{64}$/;

/** What a put returns: the key to store in the database, and facts about the file. */
export interface StoredBlob {
  key: string;
  sizeBytes: number;
  sha256: string;
}

/** Size and last write time of a stored blob (a dedupe hit counts as a write: it freshens the time). */
export interface BlobStat {
  size: number;
  mtimeMs: number;
}

/** A blob found by walking the store (BlobStore.listBlobs). */
export interface ListedBlob extends BlobStat {
  key: string;
}

/** A byte range, both ends inclusive, as in Content-Range. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A blob opened for reading (the file server's view): its size now, and its bytes on demand. */
export interface OpenedBlob {
  size: number;
  /**
   * The bytes of `range` (the whole blob without one) as a stream. Call at most once; the stream owns what
   * open() held from then on. Rejects with not_found when the blob vanished since open().
   */
  read(range?: ByteRange): Promise<Readable>;
  /** Releases what open() holds when read() will not be called (a no-op after read()). */
  close(): Promise<void>;
}

/**
 * A blob as a file on the local disk, for tools that need a path (ffmpeg, sharp). Read it only, never
 * change it: with the local store it is the stored file itself. Always call release() after use: with S3
 * it is a temporary copy under `DATA_DIR/tmp` that release() removes (clearTemp at start-up removes the
 * copies a crash left behind).
 */
export interface LocalBlobFile {
  path: string;
  release(): Promise<void>;
}

/** What a presigned GET answers with, besides the bytes. */
export interface PresignOptions {
  contentType: string;
  contentDisposition?: string;
}

/** Content-addressed blob storage (see the module comment). Every method refuses a malformed key safely. */
export interface BlobStore {
  /** Scratch space on the local disk (`<dataDir>/tmp`): uploads in flight, derived files, local copies. */
  readonly tmpDir: string;
  /** Creates folders and checks the store is reachable. Call once at start-up, before any other method. */
  init(): Promise<void>;
  /** A fresh, unique path under tmpDir (nothing is created). `prefix` only helps a human reading the folder. */
  tempPath(prefix?: string): string;
  /** Deletes everything in tmpDir. Only safe at start-up, when no upload is in flight. */
  clearTemp(): Promise<number>;
  /**
   * Stores a finished temp file under its content hash and removes the temp file. `sha256` may be passed
   * when the caller hashed the bytes while receiving them. The same content already stored is reused
   * (dedupe) and freshened, so the orphan sweep spares it. On failure the temp file stays for the caller.
   */
  putFile(tempFile: string, ext: string, sha256?: string): Promise<StoredBlob>;
  /** Stores a small in-memory file (a video frame, a crop, an edit) the same way. */
  putBuffer(buf: Buffer, ext: string): Promise<StoredBlob>;
  /** Size and write time, or null when absent (or the key is malformed). */
  stat(key: string): Promise<BlobStat | null>;
  /** Whether a blob is stored. A malformed key is simply absent. */
  exists(key: string): Promise<boolean>;
  /** Opens a blob for reading, or null when it is absent (or the key is malformed). */
  open(key: string): Promise<OpenedBlob | null>;
  /** The whole blob in memory (frames, crops, renditions: small files). Throws not_found when absent. */
  readBuffer(key: string): Promise<Buffer>;
  /** The blob as a local file for tools that need a path; see LocalBlobFile. Throws not_found when absent. */
  materialize(key: string): Promise<LocalBlobFile>;
  /** Deletes a blob; false when it was not there. Only call once no row references it. */
  remove(key: string): Promise<boolean>;
  /**
   * Removes blobs that no database row references and that were not written for `minAgeMs` (the age guard
   * spares blobs whose row is being written right now). `isReferenced` is asked in batches. Returns how
   * many blobs were removed.
   */
  sweepOrphans(
    isReferenced: (keys: string[]) => Promise<Set<string>>,
    minAgeMs: number,
    batchSize?: number,
  ): Promise<number>;
  /**
   * Every stored blob, in key order (the integrity report's untracked files). Stores that cannot list cheaply
   * leave it out (S3 today); the report then says it did not look.
   */
  listBlobs?(): AsyncIterable<ListedBlob>;
  /**
   * Moves a blob out of the store into a folder on the local disk (quarantine); false when it was not there or
   * was written (or deduplicated onto) in the last `minAgeMs`.
   */
  quarantine?(key: string, dir: string, minAgeMs?: number): Promise<boolean>;
  /**
   * A URL the client may GET the blob from directly (S3_PRESIGNED_GETS), or null to serve it here. Stores
   * that cannot presign leave it out.
   */
  presignedGetUrl?(key: string, options: PresignOptions): Promise<string | null>;
}

/** True when `key` is a well-formed blob key (says nothing about whether it exists). */
export function isBlobKey(key: string): boolean {
  return typeof key === 'string' && BLOB_KEY_RE.test(key);
}

/** The content hash part of a blob key (used as a strong ETag). */
export function blobSha256(key: string): string {
  return key.slice(0, 64);
}

/** The extension part of a blob key, without the dot. */
export function blobExt(key: string): string {
  return key.slice(65);
}

/** Streams a file through SHA-256; never holds more than one chunk in memory. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** Checks a put's extension and optional digest (invalid_input when odd), hashing the file when none was given. */
export async function keyForPut(file: string, ext: string, sha256?: string): Promise<{ key: string; hash: string }> {
  if (!EXT_RE.test(ext)) throw new DomainError('invalid_input', `invalid file extension: ${JSON.stringify(ext)}`);
  if (sha256 !== undefined && !SHA256_RE.test(sha256)) throw new DomainError('invalid_input', 'invalid sha256 digest');
  const hash = sha256 ?? (await sha256File(file));
  return { key: `${hash}.${ext}`, hash };
}

/** A fresh, unique path under `tmpDir` with a sanitised prefix. */
export function scratchPath(tmpDir: string, prefix = 'tmp'): string {
  const safe = prefix.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 32) || 'tmp';
  return path.join(tmpDir, `${safe}-${randomUUID()}`);
}

/** Deletes everything in a folder; returns how many entries there were (0 when it does not exist). */
export async function clearDir(dir: string): Promise<number> {
  const names = await readdir(dir).catch((err) => {
    if (isErrno(err, 'ENOENT')) return [] as string[];
    throw err;
  });
  for (const name of names) await rm(path.join(dir, name), { recursive: true, force: true });
  return names.length;
}

/**
 * Per-key mutual exclusion inside one process: makes "already stored? then reuse it" atomic with respect
 * to the orphan sweep, which could otherwise delete the blob in between.
 */
export class KeyLocks {
  private readonly locks = new Map<string, Promise<unknown>>();

  /** Runs `fn` while no other holder of the same key runs. */
  async with<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.catch(() => undefined);
    this.locks.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === settled) this.locks.delete(key);
    }
  }
}

export function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}
