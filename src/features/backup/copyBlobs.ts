import { stat } from 'node:fs/promises';
import type { BlobStore } from '../../files/blobStore.js';
import { blobSha256 } from '../../files/blobStore.js';
import { writeHashed } from './hashedCopy.js';
import { backupBlobPath, type ManifestFile } from './manifest.js';
import type { BackupProgress } from './progress.js';

/** What copying a backup's blobs found and did. */
export interface CopiedBlobs {
  files: ManifestFile[];
  missing: string[];
  corrupt: string[];
  copiedFiles: number;
  copiedBytes: number;
}

/** How many blobs are copied at once (S3 reads are latency-bound; local ones barely gain past this). */
const PARALLEL = 4;

/**
 * Copies the blobs `keys` into the backup's shared files/ folder, only those not there yet: a blob is
 * content-addressed, so one already in the backup with the library's size is the same file (restore re-hashes
 * every file anyway). Each new copy is hashed on the way and kept only when its bytes match its key; a blob
 * the store has not got, or whose bytes no longer match (bit rot), is named in `missing` or `corrupt`.
 */
export async function copyBlobs(
  blobs: Pick<BlobStore, 'stat' | 'open'>,
  root: string,
  keys: string[],
  progress: BackupProgress,
  signal?: AbortSignal,
): Promise<CopiedBlobs> {
  const out: CopiedBlobs = { files: [], missing: [], corrupt: [], copiedFiles: 0, copiedBytes: 0 };
  // First the plan: the size of each blob, and which the backup lacks (bytes to copy set the rate and the ETA).
  const toCopy: Array<{ key: string; size: number }> = [];
  progress.phase('scanning', keys.length, 0);
  for (const key of keys) {
    signal?.throwIfAborted();
    const source = await blobs.stat(key);
    if (!source) out.missing.push(key);
    else {
      const present = await stat(backupBlobPath(root, key)).catch(() => null);
      if (present && present.size === source.size) out.files.push({ key, size: source.size, sha256: blobSha256(key) });
      else toCopy.push({ key, size: source.size });
    }
    progress.advance(1, 0);
  }
  progress.phase(
    'files',
    toCopy.length,
    toCopy.reduce((n, f) => n + f.size, 0),
  );
  let next = 0;
  const worker = async () => {
    while (next < toCopy.length) {
      signal?.throwIfAborted();
      const { key, size } = toCopy[next++];
      const copied = await copyOne(blobs, root, key);
      if (copied === 'missing') out.missing.push(key);
      else if (copied === 'corrupt') out.corrupt.push(key);
      else {
        out.files.push({ key, size: copied.size, sha256: copied.sha256 });
        out.copiedFiles++;
        out.copiedBytes += copied.size;
      }
      progress.advance(1, size);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  out.files.sort((a, b) => (a.key < b.key ? -1 : 1));
  return out;
}

async function copyOne(blobs: Pick<BlobStore, 'open'>, root: string, key: string) {
  const opened = await blobs.open(key);
  if (!opened) return 'missing' as const;
  const stream = await opened.read();
  const result = await writeHashed(stream, backupBlobPath(root, key), (h) => h.sha256 === blobSha256(key));
  return result.written ? result : ('corrupt' as const);
}
