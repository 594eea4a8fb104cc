/**
 * createVisionModels: the VisionModels implementation the application uses.
 * Resolves names against the catalog and checks inputs on the main thread
 * (cheap errors never queue), then hands inference to the worker pool.
 */
import type { Config } from '../config.js';
import type { Logger } from '../platform/logger.js';
import { loadCatalog, type Catalog } from './catalog.js';
import { analysisMethods } from './facade/analysis.js';
import type { FacadeContext } from './facade/context.js';
import { createModelDirectory, type ModelDirectory } from './facade/directory.js';
import { SideWorkers } from './facade/sideWorkers.js';
import { EmbedCache } from './facade/embedCache.js';
import type { LoadedModel, VisionModels } from './types.js';
import type { RequestKind, WorkerSetup } from './worker/protocol.js';
import { WorkerPool } from './worker/pool.js';

export interface VisionModelsOptions {
  /** Defaults to the shipped catalog plus <modelsDir>/catalog.local.json. */
  catalog?: Catalog;
  /** Worker threads (default: MODEL_WORKERS, else 1). Each holds its own copy of the models it loads. */
  workers?: number;
  /** Recent image embeddings kept (default: MODEL_EMBED_CACHE, else 256; 0: none). */
  embedCacheSize?: number;
  /** How long a batchable request may wait for others (default: MODEL_BATCH_WINDOW_MS, else 0). */
  batchWindowMs?: number;
  /** Requests allowed to wait before rate_limited (default 32). */
  maxQueue?: number;
  /** Unload LRU idle models above this many MB (default: env MODEL_MEMORY_BUDGET_MB, else no limit). */
  memoryBudgetMB?: number | null;
  /** Most inputs merged into one worker batch, per kind. */
  maxBatch?: Partial<Record<RequestKind, number>>;
  /** Largest input of upscale(), in pixels (default: UPSCALE_MAX_INPUT_PIXELS for the configured device). */
  upscaleMaxPixels?: number;
}

function budgetFromEnv(): number | null {
  const raw = process.env.MODEL_MEMORY_BUDGET_MB;
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`Invalid configuration: MODEL_MEMORY_BUDGET_MB must be a positive number, got ${raw}`);
  return n;
}

/** A whole number ≥ `min` from the environment, or undefined when unset. */
function intFromEnv(name: string, min: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`Invalid configuration: ${name} must be a whole number ≥ ${min}, got ${raw}`);
  return n;
}

function workerSetup(config: Config, directory: ModelDirectory, options: VisionModelsOptions): WorkerSetup {
  return {
    modelsDir: config.modelsDir,
    profile: config.modelProfile,
    device: config.device,
    memoryBudgetMB: options.memoryBudgetMB === undefined ? budgetFromEnv() : options.memoryBudgetMB,
    maxImagePixels: config.maxImagePixels,
    nice: config.inferenceNice,
    entries: [...directory.catalog.models.values()],
    pinned: [`${directory.roles.embed}:text`],
  };
}

export function createVisionModels(config: Config, logger: Logger, options: VisionModelsOptions = {}): VisionModels {
  const catalog = options.catalog ?? loadCatalog({ modelsDir: config.modelsDir });
  const directory = createModelDirectory(catalog, config);
  const log = logger.child({ component: 'models' });
  let loaded: LoadedModel[] = [];
  const setup = workerSetup(config, directory, options);
  const pool = new WorkerPool({
    setup,
    logger: log,
    size: options.workers ?? intFromEnv('MODEL_WORKERS', 1),
    batchWindowMs: options.batchWindowMs ?? intFromEnv('MODEL_BATCH_WINDOW_MS', 0),
    maxQueue: options.maxQueue,
    maxBatch: options.maxBatch,
    onModels: (models) => (loaded = models),
  });
  const embedCache = new EmbedCache(options.embedCacheSize ?? intFromEnv('MODEL_EMBED_CACHE', 0) ?? 256);
  const ctx: FacadeContext = { config, directory, pool, setup, log, embedCache };
  const sideWorkers = new SideWorkers(ctx, options.upscaleMaxPixels);

  return {
    ...analysisMethods(ctx),
    modelInfo: (name) => directory.info(directory.lookup(name ?? directory.roles.embed)),
    modelInfoById: directory.infoById,
    listModels: () => [...catalog.models.values()].map(directory.info),
    roles: () => ({ ...directory.roles }),
    workStats: () => pool.workStats(),
    loadedModels: () => [...loaded, ...sideWorkers.upscaleLoaded].map((model) => ({ ...model })),
    upscale: (image) => sideWorkers.upscale(image),
    generateImage: (prompt, opts) => sideWorkers.generateImage(prompt, opts),
    close: async () => {
      await Promise.all([pool.close(), sideWorkers.close()]);
    },
  };
}
