import Router from '@koa/router';
import Koa from 'koa';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { checkDataDir } from './platform/dataDir.js';
import { multipartBody } from './http/multipartBody.js';
import type { Config } from './config.js';
import { bootstrap } from './features/accounts/index.js';
import type { Services } from './features/kernel/services.js';
import { openBlobStore } from './files/openBlobStore.js';
import { fileServerMiddleware } from './files/fileServer.js';
import { endExifTool } from './files/exifTool.js';
import { TempOutputs } from './files/tempOutputs.js';
import { startSearchMaintenance } from './features/search/maintenance.js';
import { FileUrls } from './files/fileUrls.js';
import { jsonBody } from './http/bodies.js';
import { errorMiddleware } from './http/errorMiddleware.js';
import { createGuards } from './features/accounts/guards.js';
import { buildOpenApi } from './http/openapi.js';
import { requestLog } from './http/requestLog.js';
import { webAppMiddleware } from './http/webApp.js';
import { requestOriginMiddleware } from './http/requestOrigin.js';
import { mountRoutes } from './http/route.js';
import { ROUTES } from './routes.js';
import { createGenerationQueue } from './features/generate/generate.js';
import { registerTrashJobs, startTrashSchedule } from './features/library/trashJobs.js';
import { createLogger, type Logger } from './platform/logger.js';
import { createModelProvisioner, createVisionModels, loadCatalog } from './models/index.js';
import { JobRunner } from './jobs/runner.js';
import { DiskSpace, explainStartFailure } from './platform/diskSpace.js';
import { jobStopTimes } from './jobs/shutdownBudget.js';
import { enqueueClustering, registerIngestJobs, resumeUnfinished } from './features/ingest/jobs.js';
import { registerReindexJobs } from './features/ingest/reindex.js';
import { URGENT_JOBS } from './features/ingest/phases.js';
import { startModelWatcher } from './features/ingest/catchUp.js';
import { startRenditionBackfill } from './features/ingest/renditionJobs.js';
import { settlePlaces } from './features/ingest/places.js';
import { createEventFeed } from './features/events/index.js';
import { applyEnvWatches, noWatchService, startWatchLeadership, type WatchService } from './features/watch/index.js';
import { startBackupService } from './features/backup/index.js';
import { registerDuplicateJobs } from './features/duplicates/index.js';
import { shareLinkLive } from './features/share/index.js';
import { VERSION } from './platform/packageRoot.js';
import { openStorage, type OpenedStorage } from './storage/openStorage.js';

export interface App {
  koa: Koa;
  services: Services;
  /** Set while shutting down: /healthz answers 503 so load balancers stop sending. */
  markClosing(): void;
  /** The watched-folder service (features/watch). */
  watches: WatchService;
  /**
   * Stops the jobs and background work and closes the database, by `deadline` (epoch ms; default now +
   * SHUTDOWN_GRACE_SECONDS). `requestsDone`: the HTTP server's close, awaited before the stores close.
   */
  close(opts?: { deadline?: number; requestsDone?: Promise<unknown> }): Promise<void>;
}

/**
 * Builds the whole server over a data directory: database, file store,
 * first-start bootstrap, middleware and routes. Used by src/main.ts and by the
 * tests (through `app.koa.callback()` on a temp DATA_DIR).
 */
export async function createApp(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<App> {
  // One line naming the fix, before anything writes: DATA_DIR this user cannot write, a damaged database file.
  await checkDataDir(config.dataDir);
  const stores = await openStores(config, logger).catch((err) => explainStartFailure(err, config));
  let runner: JobRunner | null = null;
  const services = buildServices(config, logger, stores, () => runner?.notify());
  await bootstrap(services);
  services.disk?.start(); // free space on DATA_DIR: jobs pause while it is below MIN_FREE_BYTES (issue #29)
  const events = (services.events = createEventFeed(services, {
    heartbeatMs: config.eventsHeartbeatSeconds * 1000,
    retentionMs: config.eventsRetentionHours * 3_600_000,
    maxEvents: config.eventsMaxEvents,
  }));
  const searchMaintenance = startServiceWork(services);
  // ROLE=api runs no jobs: the workers sharing its database do, woken by their engine's wake-ups.
  runner = config.role === 'api' ? null : await startJobRunner(services);
  const stopWakeups = runner ? stores.storage.jobWakeups?.onJobQueued(() => runner?.notify()) : undefined;
  // Items stored before thumbnails existed get them in the background, after every other job.
  const backfill = runner ? startRenditionBackfill(services, logger.child({ component: 'renditions' })) : null;
  const trashPurge = runner ? startTrashSchedule(services) : null; // TRASH_RETENTION_DAYS, hourly
  // Items waiting for a model are analysed again once it is installed (fetched, imported, dropped in).
  const modelWatcher = runner ? startModelWatcher(services, logger.child({ component: 'models' })) : null;
  services.modelsChanged = () => modelWatcher?.check();
  sweepOrphanFiles(services);
  // Places of items whose position has none from the installed GeoNames data (new data: all of them again).
  if (runner) void settlePlaces({ storage: services.storage, logger: logger.child({ component: 'places' }) });
  // Watched folders: WATCH_DIRS as configured now, then the service that imports what appears in them.
  await applyEnvWatches(services, logger);
  // Served by the processes that run jobs, one at a time where several share a database (features/watch).
  const watches =
    config.role === 'api' ? noWatchService : startWatchLeadership(services, logger.child({ component: 'watch' }));
  // Backups into BACKUP_DIR: asked for through the admin API, and on the schedule (BACKUP_INTERVAL_HOURS).
  const backups = startBackupService({ ...services, logger: logger.child({ component: 'backup' }) });
  services.watchesChanged = () => watches.reload();
  // A model the background download just installed wakes the watcher at once (it would notice within seconds anyway).
  services.modelFetch?.onInstalled(() => services.modelsChanged?.());
  services.modelFetch?.start();

  let closing = false;
  const koa = createKoa(services);
  // The web application answers what no route did (GETs outside /api, /files and /healthz).
  koa.use(webAppMiddleware(config.webDir));
  const router = buildRouter(services, () => closing, stores.storage);
  koa.use(router.routes());
  koa.use(router.allowedMethods());

  return {
    koa,
    services,
    watches,
    markClosing: () => {
      closing = true;
      events.closeAll(); // open event streams would hold the HTTP server's close for the whole grace period
    },
    close: async ({ deadline = Date.now() + config.shutdownGraceSeconds * 1000, requestsDone } = {}) => {
      events.closeAll();
      const background = (async () => {
        await watches.stop(); // the file in hand finishes its upload while the stores are open
        await backups.stop(); // a backup under way stops between two files, leaving no folder behind
        await backfill?.stop();
        trashPurge?.stop();
        await services.modelFetch?.stop();
        await modelWatcher?.stop();
        stopWakeups?.();
      })();
      const times = jobStopTimes(deadline); // beside the requests and the rest, not after them (issue #29)
      const jobs = [runner?.stop(times), services.generation?.stop(times.graceMs, times.killMs)];
      await Promise.all([background, ...jobs, requestsDone]);
      services.disk?.stop();
      await events.stop(); // after the jobs: their last progress reports are written
      stores.outputs.stop();
      await searchMaintenance.stop();
      await services.models.close();
      await stores.storage.close();
      await endExifTool();
    },
  };
}

type Stores = Pick<Services, 'blobs' | 'urls' | 'outputs'> & {
  storage: OpenedStorage;
  tokenKey: string;
};

/** The database, the file store (its scratch cleared), the signing keys and the temporary outputs (swept). */
async function openStores(config: Config, logger: Logger): Promise<Stores> {
  await mkdir(config.dataDir, { recursive: true });
  const blobs = await openBlobStore(config, logger); // first: a store that cannot be used stops the start here
  const storage = await openStorage({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    vectorSearch: config.vectorSearch,
    poolSize: config.databasePoolSize,
    checkAtStart: config.dbCheckAtStart,
    backupDir: config.backupDir, // named in the restore line a damaged database gets
  });
  const tokenKey = await storage.accounts.setSettingIfAbsent('token_key', randomBytes(32).toString('hex'));
  const urlKey = await storage.accounts.setSettingIfAbsent('file_url_key', randomBytes(32).toString('hex'));
  const urls = new FileUrls(urlKey, config.publicUrl, `http://localhost:${config.port}`);
  const outputs = new TempOutputs(config.dataDir, urls, config.outputRetentionHours * 3_600_000, logger);
  await outputs.init();
  outputs.startSweeping();
  return { storage, blobs, urls, outputs, tokenKey };
}

function buildServices(config: Config, logger: Logger, stores: Stores, wakeJobs: () => void): Services {
  const { storage, blobs, urls, outputs, tokenKey } = stores;
  const catalog = loadCatalog({ modelsDir: config.modelsDir });
  const models = createVisionModels(config, logger, {
    catalog,
    maxQueue: config.inferenceQueueLength,
    memoryBudgetMB: config.modelMemoryBudgetMB,
  });
  const modelFetch = createModelProvisioner({ config, catalog, logger });
  // A search must not wait for the embedder to load once it has arrived: warm it as at start-up.
  modelFetch.onInstalled((name) => {
    if (config.modelProfile === 'default' && name === catalog.roles.default.embed)
      void models.warmUp().catch((err) => logger.warn('model warm-up failed', { err }));
  });
  return {
    config,
    storage,
    indexes: storage.indexes,
    blobs,
    logger,
    urls,
    outputs,
    models,
    modelFetch,
    tokenKey: Buffer.from(tokenKey, 'hex'),
    wakeJobs,
    disk: new DiskSpace({ dir: config.dataDir, minFreeBytes: config.minFreeBytes, logger }),
  };
}

/** Model warm-up, the generation queue and search-index maintenance; returns the maintenance to stop on close. */
function startServiceWork(services: Services) {
  const { config, logger } = services;
  // The first search of the day must not wait for a model to load: warm the
  // default embedder in the background when it is installed.
  if (config.modelProfile === 'default' && services.models.modelInfo().installed) {
    void services.models.warmUp().catch((err) => logger.warn('model warm-up failed', { err }));
  }

  // Image generation: its own durable queue and runner, one generation at a time.
  services.generation = createGenerationQueue(services);
  services.generation.start();

  // Warm the vector index's in-memory copies and build any missing index, in the background.
  return startSearchMaintenance(services);
}

/**
 * Background work: the ingest pipeline (none when ingestConcurrency is 0). Jobs left by a previous
 * run (even a crashed one) resume by themselves once their lease expires.
 */
async function startJobRunner(services: Services): Promise<JobRunner | null> {
  const { config, logger, storage } = services;
  if (config.ingestConcurrency <= 0) return null;
  const runner = new JobRunner({
    store: storage.jobs,
    logger: logger.child({ component: 'jobs' }),
    concurrency: config.ingestConcurrency,
    // A fresh item's first phases have a slot of their own: searchable in seconds during a long analysis.
    lane: config.ingestOrder === 'searchable-first' ? { types: URGENT_JOBS, slots: 1 } : undefined,
    pausable: { keep: URGENT_JOBS }, // paused from /admin/jobs: uploads still become searchable
    leaseMs: config.jobLeaseSeconds * 1000,
    diskSpace: services.disk, // nothing is claimed while the disk is full; it resumes by itself
  });
  registerIngestJobs(runner, services);
  registerReindexJobs(runner, services);
  registerDuplicateJobs(runner, services);
  registerTrashJobs(runner, services);
  await resumeUnfinished(services);
  await enqueueClustering(services, null); // faces committed while a previous run was stopping
  runner.start();
  return runner;
}

/**
 * Files left by a crash between "file stored" and "row written" have no row: remove them (in the
 * background). Only files older than a minute, so uploads in flight right now are never touched.
 */
function sweepOrphanFiles({ blobs, storage, logger }: Services): void {
  void blobs
    .sweepOrphans((keys) => storage.media.referencedBlobKeys(keys), 60_000)
    .then((n) => n && logger.info('removed orphaned files', { count: n }))
    .catch((err) => logger.warn('orphan sweep failed', { err }));
}

/** The Koa app with its middleware in order: request log, the request's origin (for URLs), errors, signed file URLs. */
function createKoa(services: Services): Koa {
  const { logger, blobs, urls, outputs, disk } = services;
  const koa = new Koa();
  koa.proxy = true;
  // Koa prints stream errors itself unless someone listens. A client that stops a
  // download (a video player seeking) is routine; a connection that ends inside a request
  // (malformed or cut-off HTTP: llhttp's HPE_* codes) is the client's doing, not an error of ours;
  // anything else goes to the log as an error.
  const routine = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);
  koa.on('error', (err: NodeJS.ErrnoException) => {
    const code = err.code ?? '';
    if (code.startsWith('HPE_')) logger.info('client sent malformed or incomplete HTTP', { code });
    else if (!routine.has(code)) logger.error('server error', { err });
  });
  koa.use(requestLog(logger));
  koa.use(requestOriginMiddleware());
  koa.use(errorMiddleware(logger, (err) => disk?.reportFull(err)));
  const shareLive = (linkId: string) => shareLinkLive(services, linkId);
  koa.use(fileServerMiddleware({ store: blobs, urls, outputs, logger, shareLinkLive: shareLive }));
  // Bodies are read per route, after authentication (http/route.ts): JSON by http/bodies.ts, uploads by multipartBody.
  return koa;
}

/** /healthz, /api/openapi.json and every API route. */
function buildRouter(
  services: Services,
  isClosing: () => boolean,
  database: Pick<OpenedStorage, 'engine' | 'vectorSearch'>,
): Router {
  const { config } = services;
  const router = new Router();
  router.get('/healthz', (ctx) => {
    const closing = isClosing();
    ctx.status = closing ? 503 : 200;
    ctx.body = {
      status: closing ? 'shutting down' : 'ok',
      version: VERSION,
      role: config.role,
      database: database.engine,
      // Off: PostgreSQL without pgvector (VECTOR_SEARCH=off): search by words, names and places only.
      vectorSearch: database.vectorSearch,
      models: {
        profile: config.modelProfile,
        device: config.device,
        loaded: services.models.loadedModels().map((m) => ({ name: m.name, part: m.part, device: m.device })),
        fetch: healthzFetch(services),
      },
      disk: services.disk?.state(), // full: background jobs paused, with the reason
    };
  });
  router.get('/api/openapi.json', (ctx) => {
    ctx.body = buildOpenApi(ROUTES, { version: VERSION, serverUrl: services.urls.origin() });
  });
  mountRoutes(router, services, createGuards(services), ROUTES, {
    multipart: multipartBody({
      tmpDir: services.blobs.tmpDir,
      maxUploadBytes: config.maxUploadBytes,
      uploadIdleSeconds: config.uploadIdleSeconds,
      space: services.disk,
    }),
    largeMultipart: multipartBody({
      tmpDir: services.blobs.tmpDir,
      maxUploadBytes: config.maxModelBundleBytes,
      uploadIdleSeconds: config.uploadIdleSeconds,
      space: services.disk,
      limitName: 'MAX_MODEL_BUNDLE_BYTES',
    }),
    json: jsonBody(config.maxJsonBytes),
  });
  return router;
}

/** The background model download in a few fields (cheap: read from memory). */
function healthzFetch({ modelFetch }: Services) {
  if (!modelFetch) return undefined;
  const s = modelFetch.summary();
  return {
    state: s.state,
    ...(s.reason ? { reason: s.reason } : {}),
    model: s.model,
    bytesDone: s.bytesDone,
    bytesTotal: s.bytesTotal,
    etaSeconds: s.etaSeconds,
    queued: s.queued,
    failed: s.failed,
  };
}
