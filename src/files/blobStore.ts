/**
 * Content-addressed file storage on the local disk.
 *
 * A blob key is `<sha256 hex>.<ext>` and lives at `files/<2 hex>/<2 hex>/<key>`,
 * so identical uploads share one file and a key can never name anything outside
 * the store. Writes go to `tmp/` first, are fsynced, then renamed into place
 * (atomic on one filesystem) and the directory is fsynced: a reader never sees
 * a half-written blob, and after a crash a blob is either whole or absent.
 *
 * Write order contract with the database: the caller stores the file first and
 * writes the row that references it after. A crash in between leaves at worst
 * an unreferenced file, which `sweepOrphans` removes later; it never leaves a
 * row pointing at a missing file.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DomainError, notFound } from '../platform/errors.js';

/** A valid blob key: 64 lowercase hex digits, a dot, a short lowercase extension. */
export const BLOB_KEY_RE = /^[0-9a-f]{64}\.[a-z0-9]{2,5}$/;
const EXT_RE = /^[a-z0-9]{2,5}$/;
const SHA256_RE = /^[0-9a-f]{64}$/;
const SHARD_RE = /^[0-9a-f]{2}$/;

/** What a put returns: the key to store in the database, and facts about the file. */
export interface StoredBlob {
  key: string;
  sizeBytes: number;
  sha256: string;
}

/** True when `key` is a well-formed blob key (says nothing about whether it exists). */
export function isBlobKey(key: string): boolean {
  return BLOB_KEY_RE.test(key);
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

export class BlobStore {
  /** Where blobs live: `<dataDir>/files`. */
  readonly filesDir: string;
  /** Scratch space for uploads and derived files in progress: `<dataDir>/tmp`. Same filesystem, so rename is atomic. */
  readonly tmpDir: string;

  constructor(readonly dataDir: string) {
    this.filesDir = path.join(dataDir, 'files');
    this.tmpDir = path.join(dataDir, 'tmp');
  }

  /** Creates the folders. Call once at start-up, before any other method. */
  async init(): Promise<void> {
    await mkdir(this.filesDir, { recursive: true });
    await mkdir(this.tmpDir, { recursive: true });
  }

  /** A fresh, unique path under tmp/ (nothing is created). `prefix` only helps a human reading the folder. */
  tempPath(prefix = 'tmp'): string {
    const safe = prefix.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 32) || 'tmp';
    return path.join(this.tmpDir, `${safe}-${randomUUID()}`);
  }

  /**
   * Moves a finished temp file into the store under its content hash.
   * `sha256` may be passed when the caller already hashed the bytes while
   * receiving them; otherwise the file is hashed here (streaming).
   * If the same content is already stored, the temp file is deleted and the
   * existing key returned (dedupe).
   */
  async putFile(tempFile: string, ext: string, sha256?: string): Promise<StoredBlob> {
    if (!EXT_RE.test(ext)) throw new DomainError('invalid_input', `invalid file extension: ${JSON.stringify(ext)}`);
    if (sha256 !== undefined && !SHA256_RE.test(sha256))
      throw new DomainError('invalid_input', 'invalid sha256 digest');
    const hash = sha256 ?? (await sha256File(tempFile));
    const key = `${hash}.${ext}`;
    const target = this.pathFor(key);

    // The per-key lock makes "already stored? then reuse it" atomic with respect to
    // the orphan sweep, which could otherwise delete the file in between.
    return this.withKeyLock(key, async () => {
      const existing = await statOrNull(target);
      if (existing) {
        // Freshen the mtime: the caller is about to reference this blob.
        const now = new Date();
        try {
          await utimes(target, now, now);
          await unlink(tempFile).catch(() => undefined);
          return { key, sizeBytes: existing.size, sha256: hash };
        } catch (err) {
          if (!isErrno(err, 'ENOENT')) throw err;
          // It vanished after all: store ours below.
        }
      }

      const sizeBytes = await fsyncFile(tempFile);
      const dir = path.dirname(target);
      const created = await mkdir(dir, { recursive: true });
      await rename(tempFile, target);
      await fsyncDir(dir);
      // A newly created shard folder must itself be made durable in its parent.
      if (created) {
        await fsyncDir(path.dirname(dir));
        if (created !== dir) await fsyncDir(this.filesDir);
      }
      return { key, sizeBytes, sha256: hash };
    });
  }

  private readonly keyLocks = new Map<string, Promise<unknown>>();

  /** Runs `fn` while no other putFile or sweep step holds the same key. */
  private async withKeyLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.keyLocks.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.catch(() => undefined);
    this.keyLocks.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.keyLocks.get(key) === settled) this.keyLocks.delete(key);
    }
  }

  /** Stores a small in-memory file (a video frame, a crop, an edit) with the same crash safety as putFile. */
  async putBuffer(buf: Buffer, ext: string): Promise<StoredBlob> {
    const tmp = this.tempPath('buf');
    const fh = await open(tmp, 'wx');
    try {
      await fh.writeFile(buf);
    } finally {
      await fh.close();
    }
    try {
      const sha256 = createHash('sha256').update(buf).digest('hex');
      return await this.putFile(tmp, ext, sha256);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The absolute path of a blob. The key is checked strictly against
   * BLOB_KEY_RE, so `..`, slashes and anything else odd are refused with
   * not_found: a key from a URL can never reach outside the store.
   */
  pathFor(key: string): string {
    if (typeof key !== 'string' || !BLOB_KEY_RE.test(key)) throw notFound('file not found');
    return path.join(this.filesDir, key.slice(0, 2), key.slice(2, 4), key);
  }

  /** Size and modification time of a stored blob, or null when it is absent (or the key is malformed). */
  async stat(key: string): Promise<{ size: number; mtimeMs: number } | null> {
    if (!isBlobKey(key)) return null;
    const st = await statOrNull(this.pathFor(key));
    return st && st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : null;
  }

  /** Whether a blob is stored. A malformed key is simply absent. */
  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  /** Deletes a blob; returns false when it was not there. Only call once no row references it. */
  async remove(key: string): Promise<boolean> {
    try {
      await unlink(this.pathFor(key));
      return true;
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return false;
      throw err;
    }
  }

  /** Deletes everything in tmp/. Only safe at start-up, when no upload is in flight. */
  async clearTemp(): Promise<number> {
    const names = await readdir(this.tmpDir).catch((err) => {
      if (isErrno(err, 'ENOENT')) return [] as string[];
      throw err;
    });
    for (const name of names) await rm(path.join(this.tmpDir, name), { recursive: true, force: true });
    return names.length;
  }

  /**
   * Removes blobs that no database row references: what a crash between
   * "file written" and "row written" leaves behind, and files whose last
   * reference was purged. Walks files/, asks `isReferenced` in batches which
   * keys are still in use, and deletes the others if older than `minAgeMs`
   * (the age guard keeps files whose row is being written right now).
   * Returns how many files were removed. Shard folders are left in place,
   * even empty, so a concurrent putFile never loses its folder.
   */
  async sweepOrphans(
    isReferenced: (keys: string[]) => Promise<Set<string>>,
    minAgeMs: number,
    batchSize = 500,
  ): Promise<number> {
    let removed = 0;
    let batch: string[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const keys = batch;
      batch = [];
      const referenced = await isReferenced(keys);
      for (const key of keys) {
        if (referenced.has(key)) continue;
        // Check the age again just before deleting: a putFile that deduped onto
        // this blob meanwhile has freshened its mtime.
        const gone = await this.withKeyLock(key, async () => {
          const st = await this.stat(key);
          if (!st || Date.now() - st.mtimeMs < minAgeMs) return false;
          return this.remove(key);
        });
        if (gone) removed++;
      }
    };

    for (const a of await listDirs(this.filesDir)) {
      for (const b of await listDirs(path.join(this.filesDir, a))) {
        const dir = path.join(this.filesDir, a, b);
        for (const name of await readdir(dir).catch(() => [] as string[])) {
          // Only files that sit where their key says they belong are ours to judge.
          if (!isBlobKey(name) || name.slice(0, 2) !== a || name.slice(2, 4) !== b) continue;
          const st = await statOrNull(path.join(dir, name));
          if (!st || !st.isFile() || Date.now() - st.mtimeMs < minAgeMs) continue;
          batch.push(name);
          if (batch.length >= batchSize) await flush();
        }
      }
    }
    await flush();
    return removed;
  }
}

/** Flushes a file's data to disk; returns its size. */
async function fsyncFile(file: string): Promise<number> {
  const fh = await open(file, 'r+');
  try {
    await fh.sync();
    return (await fh.stat()).size;
  } finally {
    await fh.close();
  }
}

/** Flushes a directory entry change (a rename) to disk. Some platforms cannot fsync a directory; that is tolerated. */
async function fsyncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch (err) {
    if (!isErrno(err, 'EISDIR') && !isErrno(err, 'EINVAL') && !isErrno(err, 'EPERM') && !isErrno(err, 'EBADF'))
      throw err;
  } finally {
    await fh?.close();
  }
}

async function listDirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && SHARD_RE.test(e.name))
    .map((e) => e.name)
    .sort();
}

async function statOrNull(p: string) {
  try {
    return await stat(p);
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return null;
    throw err;
  }
}

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}
