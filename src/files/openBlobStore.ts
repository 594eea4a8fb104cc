/**
 * Picks and opens the blob store the configuration names (BLOB_STORE): the local disk by default, or an
 * S3-compatible bucket. Either way the scratch folder is cleared (only safe at start-up) and, for S3, the
 * bucket checked: an unreachable store or a missing bucket throws BlobStoreUnavailableError, one line
 * naming the fix, and the server does not start.
 */
import type { Config } from '../config.js';
import type { Logger } from '../platform/logger.js';
import type { BlobStore } from './blobStore.js';
import { LocalBlobStore } from './localBlobStore.js';

export async function openBlobStore(
  config: Pick<Config, 'dataDir' | 'blobStore' | 's3'>,
  logger?: Logger,
  /** False for a tool run beside a running server (backup, check): its uploads in flight live in tmp/. */
  clearTemp = true,
): Promise<BlobStore> {
  let blobs: BlobStore;
  if (config.blobStore === 's3') {
    if (!config.s3) throw new Error('BLOB_STORE=s3 without its S3 settings');
    // Loaded only here: the AWS SDK costs about 130 ms and 24 MB at start-up that the local store need not pay.
    const [{ S3BlobStore }, { createS3Client }] = await Promise.all([
      import('./s3/s3BlobStore.js'),
      import('./s3/s3Client.js'),
    ]);
    blobs = new S3BlobStore({
      dataDir: config.dataDir,
      settings: config.s3,
      client: createS3Client(config.s3),
      logger: logger?.child({ component: 'blobs' }),
    });
  } else {
    blobs = new LocalBlobStore(config.dataDir);
  }
  await blobs.init();
  if (clearTemp) await blobs.clearTemp();
  return blobs;
}
