/**
 * The blob store on the local disk (the default, `BLOB_STORE=local`).
 *
 * A blob lives at `files/<2 hex>/<2 hex>/<key>`. Writes go to `tmp/` first, are fsynced, then renamed into
 * place (atomic on one filesystem) and the directory is fsynced: a reader never sees a half-written blob,
 * and after a crash a blob is either whole or absent.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readdir, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { notFound } from '../platform/errors.js';
import {
  BLOB_KEY_RE,
  clearDir,
  isBlobKey,
  isErrno,
  KeyLocks,
  keyForPut,
  scratchPath,
  type BlobStat,
  type BlobStore,
  type ListedBlob,
  type ByteRange,
  type LocalBlobFile,
  type OpenedBlob,
  type StoredBlob,
} from './blobStore.js';

const SHARD_RE = /^[0-9a-f]{2}$/;

export class LocalBlobStore implements BlobStore {
  /** Where blobs live: `<dataDir>/files`. */
  readonly filesDir: string;
  /** Scratch space: `<dataDir>/tmp`. Same filesystem, so rename is atomic. */
  readonly tmpDir: string;
  private readonly locks = new KeyLocks();

  constructor(readonly dataDir: string) {
    this.filesDir = path.join(dataDir, 'files');
    this.tmpDir = path.join(dataDir, 'tmp');
  }

  async init(): Promise<void> {
    await mkdir(this.filesDir, { recursive: true });
    await mkdir(this.tmpDir, { recursive: true });
  }

  tempPath(prefix = 'tmp'): string {
    return scratchPath(this.tmpDir, prefix);
  }

  clearTemp(): Promise<number> {
    return clearDir(this.tmpDir);
  }

  async putFile(tempFile: string, ext: string, sha256?: string): Promise<StoredBlob> {
    const { key, hash } = await keyForPut(tempFile, ext, sha256);
    const target = this.pathFor(key);
    return this.locks.with(key, async () => {
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

  async putBuffer(buf: Buffer, ext: string): Promise<StoredBlob> {
    const tmp = this.tempPath('buf');
    const fh = await open(tmp, 'wx');
    try {
      await fh.writeFile(buf);
    } finally {
      await fh.close();
    }
    try {
      return await this.putFile(tmp, ext, createHash('sha256').update(buf).digest('hex'));
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The absolute path of a blob (this store only: S3 has none, see materialize). The key is checked
   * strictly against BLOB_KEY_RE, so `..`, slashes and anything else odd are refused with not_found: a key
   * from a URL can never reach outside the store.
   */
  pathFor(key: string): string {
    if (typeof key !== 'string' || !BLOB_KEY_RE.test(key)) throw notFound('file not found');
    return path.join(this.filesDir, key.slice(0, 2), key.slice(2, 4), key);
  }

  async stat(key: string): Promise<BlobStat | null> {
    if (!isBlobKey(key)) return null;
    const st = await statOrNull(this.pathFor(key));
    return st && st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : null;
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async open(key: string): Promise<OpenedBlob | null> {
    if (!isBlobKey(key)) return null;
    let fh: FileHandle;
    try {
      fh = await open(this.pathFor(key), 'r');
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return null;
      throw err;
    }
    // Stat the handle: what is measured is exactly what is sent, even if the sweep unlinks the path meanwhile.
    const size = await fh.stat().then(
      (s) => s.size,
      async (err) => {
        await fh.close();
        throw err;
      },
    );
    let handedOff = false;
    return {
      size,
      read: async (range?: ByteRange) => {
        handedOff = true;
        // The stream takes over the handle and closes it when done or destroyed.
        return fh.createReadStream({ start: range?.start ?? 0, end: range?.end, autoClose: true });
      },
      close: async () => {
        if (!handedOff) await fh.close().catch(() => undefined);
        handedOff = true;
      },
    };
  }

  async readBuffer(key: string): Promise<Buffer> {
    try {
      return await readFile(this.pathFor(key));
    } catch (err) {
      if (isErrno(err, 'ENOENT')) throw notFound('file not found');
      throw err;
    }
  }

  /** The stored file itself (no copy); release() does nothing. */
  async materialize(key: string): Promise<LocalBlobFile> {
    if (!(await this.exists(key))) throw notFound('file not found');
    return { path: this.pathFor(key), release: async () => undefined };
  }

  async remove(key: string): Promise<boolean> {
    if (!isBlobKey(key)) return false;
    try {
      await unlink(this.pathFor(key));
      return true;
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return false;
      throw err;
    }
  }

  /**
   * Walks files/ (only files that sit where their key says they belong are ours to judge). Shard folders
   * are left in place, even empty, so a concurrent putFile never loses its folder.
   */
  async sweepOrphans(
    isReferenced: (keys: string[]) => Promise<Set<string>>,
    minAgeMs: number,
    batchSize = 500,
  ): Promise<number> {
    let removed = 0;
    let batch: string[] = [];
    const flush = async () => {
      const keys = batch;
      batch = [];
      if (keys.length === 0) return;
      const referenced = await isReferenced(keys);
      for (const key of keys.filter((k) => !referenced.has(k))) {
        // Check the age again just before deleting: a putFile that deduped onto this blob meanwhile has
        // freshened its mtime.
        const gone = await this.locks.with(key, async () => {
          const st = await this.stat(key);
          return st !== null && Date.now() - st.mtimeMs >= minAgeMs && this.remove(key);
        });
        if (gone) removed++;
      }
    };
    for await (const blob of this.listBlobs()) {
      if (Date.now() - blob.mtimeMs < minAgeMs) continue;
      batch.push(blob.key);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    return removed;
  }

  /**
   * Every blob stored, in key order, with its size and write time: only files that sit where their key says
   * they belong (anything else in files/ is not a blob of ours).
   */
  async *listBlobs(): AsyncIterable<ListedBlob> {
    for (const a of await listDirs(this.filesDir)) {
      for (const b of await listDirs(path.join(this.filesDir, a))) {
        const dir = path.join(this.filesDir, a, b);
        for (const name of (await readdir(dir).catch(() => [] as string[])).sort()) {
          if (!isBlobKey(name) || name.slice(0, 2) !== a || name.slice(2, 4) !== b) continue;
          const st = await statOrNull(path.join(dir, name));
          if (st && st.isFile()) yield { key: name, size: st.size, mtimeMs: st.mtimeMs };
        }
      }
    }
  }

  /**
   * Moves a blob out of the store into `dir` (created if needed), under its key; false when it was not there
   * or was written in the last `minAgeMs`.
   * Nothing is deleted: a file no row points to is set aside for a person to judge. Done under the key's lock,
   * so an upload deduplicating onto it meanwhile either sees it or stores it again.
   */
  async quarantine(key: string, dir: string, minAgeMs = 0): Promise<boolean> {
    if (!isBlobKey(key)) return false;
    await mkdir(dir, { recursive: true });
    return this.locks.with(key, async () => {
      // An upload that deduplicated onto it since the caller looked has freshened it: it stays.
      const st = await this.stat(key);
      if (!st || Date.now() - st.mtimeMs < minAgeMs) return false;
      try {
        await rename(this.pathFor(key), path.join(dir, key));
        await fsyncDir(dir);
        return true;
      } catch (err) {
        if (isErrno(err, 'ENOENT')) return false;
        throw err;
      }
    });
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
    if (!['EISDIR', 'EINVAL', 'EPERM', 'EBADF'].some((code) => isErrno(err, code))) throw err;
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
