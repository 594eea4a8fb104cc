import type { Config } from '../../config.js';
import type { Logger } from '../../platform/logger.js';
import type { WorkerSetup } from '../worker/protocol.js';
import type { WorkerPool } from '../worker/pool.js';
import type { ModelDirectory } from './directory.js';
import type { EmbedCache } from './embedCache.js';

/** What the VisionModels methods share: the configuration, the catalog view and the main worker pool. */
export interface FacadeContext {
  config: Config;
  directory: ModelDirectory;
  /** The main worker pool: embeddings, captions, detections, mattes. */
  pool: WorkerPool;
  /** The setup its workers start with (the side workers start with a copy). */
  setup: WorkerSetup;
  log: Logger;
  /** Recent image embeddings (ingest embeds each frame twice: its object, then moderation). */
  embedCache: EmbedCache;
}
