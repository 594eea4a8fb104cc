import { createHash } from 'node:crypto';
import { copyFile, rm } from 'node:fs/promises';
import type { BlobStore } from './blobStore.js';

export interface BlobCopyResult {
  copied: number;
  /** Already in the target with the right bytes. */
  present: number;
  /** Keys missing from the source (nothing to copy). */
  missing: string[];
  /** Keys whose bytes in the target do not hash to their key. */
  corrupt: string[];
}

/** The sha256 of a stored blob's bytes, read as a stream. */
export async function hashBlob(store: BlobStore, key: string): Promise<string | null> {
  const opened = await store.open(key);
  if (!opened) return null;
  const hash = createHash('sha256');
  for await (const chunk of await opened.read()) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Copies these content-addressed blobs from one store to another (a library moving to S3, or to another
 * disk), skipping those already there, then checks each one in the target: its bytes must hash to the
 * sha256 its key names. Safe to run again: a copied blob is found present.
 */
export async function copyBlobs(
  from: BlobStore,
  to: BlobStore,
  keys: string[],
  onProgress?: (done: number, total: number) => void,
): Promise<BlobCopyResult> {
  const result: BlobCopyResult = { copied: 0, present: 0, missing: [], corrupt: [] };
  let done = 0;
  for (const key of keys) {
    const [sha, ext] = key.split('.');
    if (await to.exists(key)) result.present++;
    else if (!(await from.exists(key))) result.missing.push(key);
    else {
      const local = await from.materialize(key);
      // putFile takes the file away: give it a copy, never the source's own file.
      const temp = to.tempPath('migrate');
      try {
        await copyFile(local.path, temp);
        await to.putFile(temp, ext, sha);
        result.copied++;
      } finally {
        await rm(temp, { force: true });
        await local.release();
      }
    }
    if ((await to.exists(key)) && (await hashBlob(to, key)) !== sha) result.corrupt.push(key);
    onProgress?.(++done, keys.length);
  }
  return result;
}
