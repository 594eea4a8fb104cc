import type { Config } from '../config.js';
import type { BlobStore } from '../files/blobStore.js';
import type { FileUrls } from '../files/fileUrls.js';
import type { TempOutputs } from '../files/tempOutputs.js';
import type { GenerationQueueOf } from '../generate/generate.js';
import type { Logger } from '../logger.js';
import type { VisionModels } from '../models/types.js';
import type { SearchIndexes } from '../index/searchIndexes.js';
import type { Storage } from '../storage/storage.js';
import type { Role } from '../storage/types.js';

/**
 * What domain functions receive: the stores and helpers they work with.
 * Built once in src/app.ts; tests build their own over temp directories.
 */
export interface Services {
  config: Config;
  storage: Storage;
  /** The search indexes (vector, text), kept in step with the stores by the stores themselves. */
  indexes: SearchIndexes;
  blobs: BlobStore;
  urls: FileUrls;
  /** Temporary area for edited and generated images (expire after OUTPUT_RETENTION_HOURS). */
  outputs: TempOutputs;
  logger: Logger;
  /** Local vision models (inference off the event loop, in worker threads). */
  models: VisionModels;
  /** The image generation queue (one generation at a time); absent in scripts that build their own services. */
  generation?: GenerationQueueOf;
  /** Wakes the job runner after something was queued (a no-op when none runs in this process). */
  wakeJobs: () => void;
  /** HMAC key for Bearer tokens (kept in the database's settings). */
  tokenKey: Buffer;
}

/** Who is calling: resolved from an API key or a Bearer token by src/domain/auth.ts. */
export interface Principal {
  userId: string;
  organizationId: string;
  role: Role;
  keyId: string;
}
