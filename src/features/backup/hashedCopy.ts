/** Copying and hashing files in one pass, durably: what backup and restore write is fsynced before it is renamed. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

export interface Hashed {
  sha256: string;
  size: number;
}

/**
 * Writes `source` to `target` through a temporary file beside it (fsync, then rename), hashing the bytes on the
 * way. `accept` sees the hash before the rename: false leaves nothing behind (a blob whose bytes no longer
 * match its key is not copied). Returns the hash and whether the file was put in place.
 */
export async function writeHashed(
  source: Readable,
  target: string,
  accept: (h: Hashed) => boolean = () => true,
): Promise<Hashed & { written: boolean }> {
  await mkdir(path.dirname(target), { recursive: true });
  const tmp = `${target}.partial-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const fh = await open(tmp, 'wx');
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of source) {
      const buf = chunk as Buffer;
      hash.update(buf);
      size += buf.length;
      await fh.write(buf);
    }
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await rm(tmp, { force: true });
    source.destroy();
    throw err;
  }
  await fh.close();
  const result = { sha256: hash.digest('hex'), size };
  if (!accept(result)) {
    await rm(tmp, { force: true });
    return { ...result, written: false };
  }
  await rename(tmp, target);
  await fsyncDir(path.dirname(target));
  return { ...result, written: true };
}

/** Hashes a file on the local disk; `onChunk` may wait (a rate limit) before the next chunk is read. */
export async function hashFile(file: string, onChunk?: (bytes: number) => Promise<void>): Promise<Hashed> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const buf = chunk as Buffer;
    hash.update(buf);
    size += buf.length;
    if (onChunk) await onChunk(buf.length);
  }
  return { sha256: hash.digest('hex'), size };
}

/** Makes a rename in `dir` durable; filesystems that cannot fsync a folder are tolerated. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r').catch(() => null);
  if (!fh) return;
  try {
    await fh.sync();
  } catch {
    /* EINVAL, EISDIR on some platforms */
  } finally {
    await fh.close();
  }
}
