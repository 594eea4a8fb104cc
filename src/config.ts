import path from 'node:path';
import { StartupError } from './platform/startupError.js';
import { z } from 'zod';
import { PACKAGE_ROOT } from './platform/packageRoot.js';

/**
 * Every setting the server reads from the environment, with its default.
 * The README's configuration table mirrors this file; keep them in step.
 */
const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  /** postgres://user:password@host:port/database selects PostgreSQL (README "Scaling out"); unset: SQLite in DATA_DIR. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  /** The PostgreSQL schema of the tables (created if missing). */
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, 'lowercase letters, digits and _')
    .default('public'),
  /** PostgreSQL connections per process. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  /** off: PostgreSQL without pgvector; search by words, names and places only (/healthz says so). */
  VECTOR_SEARCH: z.enum(['on', 'off']).default('on'),
  /** Where blobs (originals, frames, renditions) live: `local` (DATA_DIR/files) or `s3` (the S3_* settings). */
  BLOB_STORE: z.enum(['local', 's3']).default('local'),
  /** The S3-compatible store's URL (MinIO, Garage, Ceph…); unset: AWS S3 itself. */
  S3_ENDPOINT: z.string().url().optional(),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default('us-east-1'),
  /** Unset: the AWS SDK's default credential chain (AWS_* variables, shared config, instance role). */
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  /** `bucket` in the path rather than the host name (unset: yes when S3_ENDPOINT is set). */
  S3_FORCE_PATH_STYLE: bool.optional(),
  /** File URLs answer with a redirect to a presigned GET straight from the store. */
  S3_PRESIGNED_GETS: bool.default(false),
  PUBLIC_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  BOOTSTRAP_API_KEY: z.string().min(16).optional(),
  MODEL_PROFILE: z.enum(['default', 'test']).default('default'),
  MODELS_DIR: z.string().default('./models'),
  DEVICE: z.enum(['cpu', 'cuda']).default('cpu'),
  OFFLINE: bool.default(false),
  /**
   * Fetch the default profile's missing models in the background at start-up (unset: yes, except with
   * MODEL_PROFILE=test; never with OFFLINE=1).
   */
  AUTO_FETCH_MODELS: bool.optional(),
  /** Where models are downloaded from (tests point it at a fake hub on 127.0.0.1). */
  MODEL_HUB_URL: z.string().url().default('https://huggingface.co'),
  /** Requests per minute allowed for one API key (token bucket, burst = one minute's worth). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(6000),
  /** Requests per minute from one client address to the public sign-in routes (login, setup, invites). */
  SIGN_IN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** Largest accepted upload, in bytes (413 above). */
  MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(4 * 1024 ** 3),
  /** Largest model bundle accepted by POST /api/models/import, in bytes (413 naming it above); streamed to disk. */
  MAX_MODEL_BUNDLE_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(64 * 1024 ** 3),
  /** An upload whose client sends nothing for this long is dropped with its scratch file (a client gone silent). */
  UPLOAD_IDLE_SECONDS: z.coerce.number().min(0.1).default(60),
  /** Free space kept on DATA_DIR: an upload that would leave less answers 507, and background jobs pause below it. */
  MIN_FREE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(64 * 1024 ** 2),
  /** SQLite's quick_check of library.db at start: always, only after a stop that did not close it, or off. */
  DB_CHECK_AT_START: z.enum(['always', 'unclean', 'off']).default('unclean'),
  /** Largest accepted JSON body, in bytes (413 above). */
  MAX_JSON_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(50 * 1024 ** 2),
  /** Decompression-bomb guard: images with more pixels than this are refused (422). */
  MAX_IMAGE_PIXELS: z.coerce.number().int().min(1).default(120_000_000),
  /** Longest side of the processed frame made from each image. */
  FRAME_MAX_SIDE: z.coerce.number().int().min(64).default(2048),
  /** Lifetime of the Bearer tokens issued by POST /api/auth/token, in seconds. */
  TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).default(3600),
  /** Allow AI image URLs that resolve to private, loopback or link-local addresses (LAN installs). */
  ALLOW_PRIVATE_IMAGE_URLS: bool.default(false),
  /** Explicit ffmpeg / ffprobe binaries; otherwise the bundled ones, then PATH. */
  FFMPEG_PATH: z.string().optional(),
  FFPROBE_PATH: z.string().optional(),
  /** Inference requests allowed to wait for the model worker before 429. */
  INFERENCE_QUEUE_LENGTH: z.coerce.number().int().min(1).default(32),
  /** Unload least-recently-used idle models above this many MB (empty: no limit). */
  MODEL_MEMORY_BUDGET_MB: z.coerce.number().positive().optional(),
  /** Ingest jobs run at once (each runs its models one after another in the model worker). 0: run no jobs in this process. */
  INGEST_CONCURRENCY: z.coerce.number().int().min(0).default(1),
  /**
   * `searchable-first`: a fresh item's embedding (phase 2) runs before any item's slow analysis (phase 3),
   * with a slot of its own; `fifo`: every phase of an item at one priority, first come first served (the
   * order before phased ingest: a baseline for the bench).
   */
  INGEST_ORDER: z.enum(['searchable-first', 'fifo']).default('searchable-first'),
  /**
   * `on-demand`: text regions found by OCR are stored without an image embedding (their words are searchable
   * by the OCR text); one is embedded the first time it is used as `similarToObjectId`. `eager`: every text
   * crop is embedded during analysis, as object crops are.
   */
  INGEST_TEXT_VECTORS: z.enum(['on-demand', 'eager']).default('on-demand'),
  /** A job's lease: a crashed worker's job is picked up again this long after its last heartbeat. */
  JOB_LEASE_SECONDS: z.coerce.number().min(1).default(60),
  /**
   * Face clustering thresholds (average cosine) per model-id prefix, e.g. `sface=0.42,sface:abc=0.8`;
   * defaults: the models' own, in models/catalog.json.
   */
  FACE_CLUSTER_THRESHOLDS: z.string().optional(),
  /** Niceness of the model worker threads (0-19): inference yields the CPU to HTTP requests. 0 disables. */
  INFERENCE_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** Hours an edited or generated image stays in the temporary output area after it was last written. */
  OUTPUT_RETENTION_HOURS: z.coerce.number().positive().default(24),
  /** Days an item stays in the trash before the purge removes it for good (server-wide; 0: never). */
  TRASH_RETENTION_DAYS: z.coerce.number().min(0).default(30),
  /** Image generations allowed to wait behind the running one; beyond: 429. */
  GENERATE_MAX_QUEUE: z.coerce.number().int().min(0).default(4),
  /** How long a request without `Prefer: respond-async` waits for its image before answering 202 with the job. */
  GENERATE_SYNC_TIMEOUT_SECONDS: z.coerce.number().min(1).default(600),
  /** The whole shutdown's deadline on SIGTERM: requests and jobs side by side, then the database closed. */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).default(7),
  /** The built web application (npm run build); default dist/web beside the code. */
  WEB_DIR: z.string().optional(),
  /** Seconds between heartbeats (a comment line) on an open GET /api/events stream. */
  EVENTS_HEARTBEAT_SECONDS: z.coerce.number().min(0.01).default(15),
  /** Hours the event log keeps events for clients that reconnect with Last-Event-ID. */
  EVENTS_RETENTION_HOURS: z.coerce.number().positive().default(24),
  /** At most this many events are kept (the newest), whatever their age. */
  EVENTS_MAX_EVENTS: z.coerce.number().int().min(1).default(100_000),
  /** Watched folders set by the operator: `collectionId=/abs/dir[,into=A/B][,mirror]`, entries joined by ';'. */
  WATCH_DIRS: z.string().optional(),
  /** Folders under which admins may add watched folders through the API, joined by ':'; unset: none. */
  WATCH_ROOTS: z.string().optional(),
  /** A watched file is imported once its size and mtime stayed the same this long (ms). */
  WATCH_SETTLE_MS: z.coerce.number().int().min(0).default(2000),
  /** Every watched folder is walked again this often, in case a file system event was missed. */
  WATCH_RESCAN_SECONDS: z.coerce.number().min(0.05).default(60),
  /** Where backups go (POST /api/admin/backups, the schedule); unset: no backups from the server. */
  BACKUP_DIR: z.string().optional(),
  /** Hours between scheduled backups while BACKUP_DIR is set; 0: only when asked. */
  BACKUP_INTERVAL_HOURS: z.coerce.number().min(0).default(24),
  /** Scheduled backups keep this many of the newest whole backups in BACKUP_DIR. */
  BACKUP_KEEP: z.coerce.number().int().min(1).default(7),
  /**
   * What this process does with a shared database: `api` serves HTTP and runs no jobs; `worker` runs the job
   * queue and serves only /healthz; `all` both (one process, the default).
   */
  ROLE: z.enum(['api', 'worker', 'all']).default('all'),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** BLOB_STORE: where blobs live; `s3` has its settings in `s3`. */
  blobStore: 'local' | 's3';
  s3: S3Settings | null;
  /** PUBLIC_URL; undefined when unset: URLs then use the host each request came to. */
  publicUrl?: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  bootstrapApiKey?: string;
  modelProfile: 'default' | 'test';
  modelsDir: string;
  device: 'cpu' | 'cuda';
  offline: boolean;
  /** AUTO_FETCH_MODELS: true / false as set, null when unset (on, except in the test profile). */
  autoFetchModels: boolean | null;
  modelHubUrl: string;
  rateLimitPerMinute: number;
  signInRateLimitPerMinute: number;
  maxUploadBytes: number;
  /** MAX_MODEL_BUNDLE_BYTES: the model bundle import's own limit. */
  maxModelBundleBytes: number;
  /** UPLOAD_IDLE_SECONDS, in seconds. */
  uploadIdleSeconds: number;
  /** MIN_FREE_BYTES (platform/diskSpace.ts). */
  minFreeBytes: number;
  maxJsonBytes: number;
  /** DB_CHECK_AT_START. */
  dbCheckAtStart: 'always' | 'unclean' | 'off';
  maxImagePixels: number;
  frameMaxSide: number;
  tokenTtlSeconds: number;
  allowPrivateImageUrls: boolean;
  ffmpegPath?: string;
  ffprobePath?: string;
  shutdownGraceSeconds: number;
  inferenceQueueLength: number;
  modelMemoryBudgetMB: number | null;
  ingestConcurrency: number;
  ingestOrder: 'searchable-first' | 'fifo';
  ingestTextVectors: 'on-demand' | 'eager';
  jobLeaseSeconds: number;
  /** Model-id prefix → face clustering join threshold (FACE_CLUSTER_THRESHOLDS), over the models' own. */
  faceClusterThresholds: Readonly<Record<string, number>>;
  inferenceNice: number;
  outputRetentionHours: number;
  /** TRASH_RETENTION_DAYS: the automatic purge of the trash (0: off). */
  trashRetentionDays: number;
  generateMaxQueue: number;
  generateSyncTimeoutSeconds: number;
  /** Folder of the built web application served at `/`. */
  webDir: string;
  eventsHeartbeatSeconds: number;
  eventsRetentionHours: number;
  eventsMaxEvents: number;
  /** WATCH_DIRS as written (parsed by features/watch at start). */
  watchDirs: string;
  /** WATCH_ROOTS, absolute; empty: the API adds no watched folder. */
  watchRoots: string[];
  watchSettleMs: number;
  watchRescanSeconds: number;
  /** ROLE: `api` (HTTP, no job runner), `worker` (job runner, /healthz only) or `all`. */
  role: 'api' | 'worker' | 'all';
  /** DATABASE_URL; undefined: SQLite. */
  databaseUrl?: string;
  databaseSchema: string;
  databasePoolSize: number;
  /** VECTOR_SEARCH=on (default). */
  vectorSearch: boolean;
  /** BACKUP_DIR, absolute; undefined: the server makes no backups. */
  backupDir?: string;
  backupIntervalHours: number;
  backupKeep: number;
}

/** The S3_* settings (BLOB_STORE=s3). */
export interface S3Settings {
  /** Unset: AWS S3 itself. */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Both or neither; neither: the AWS SDK's default credential chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  presignedGets: boolean;
}

/** The S3 settings when BLOB_STORE=s3 (null otherwise); throws on an incomplete set. */
function s3Settings(e: z.infer<typeof EnvSchema>): S3Settings | null {
  if (e.BLOB_STORE !== 's3') return null;
  if (!e.S3_BUCKET) throw new StartupError('Invalid configuration: BLOB_STORE=s3 needs S3_BUCKET');
  if (!e.S3_ACCESS_KEY_ID !== !e.S3_SECRET_ACCESS_KEY)
    throw new StartupError('Invalid configuration: set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither');
  return {
    endpoint: e.S3_ENDPOINT,
    bucket: e.S3_BUCKET,
    region: e.S3_REGION,
    accessKeyId: e.S3_ACCESS_KEY_ID,
    secretAccessKey: e.S3_SECRET_ACCESS_KEY,
    forcePathStyle: e.S3_FORCE_PATH_STYLE ?? e.S3_ENDPOINT !== undefined,
    presignedGets: e.S3_PRESIGNED_GETS,
  };
}

/**
 * Parses a setting such as `sface=0.45,sface:6791e2349554=0.8` (FACE_CLUSTER_THRESHOLDS)
 * into model-id prefix → threshold. A bare number applies to every model (prefix '').
 */
export function parseThresholds(text: string | undefined | null): Readonly<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const part of (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = part.lastIndexOf('=');
    const prefix = eq < 0 ? '' : part.slice(0, eq).trim();
    const value = Number(eq < 0 ? part : part.slice(eq + 1));
    if (!Number.isFinite(value) || value <= -1 || value >= 1)
      throw new Error(`bad cluster threshold "${part}": want prefix=number in (-1, 1)`);
    out[prefix] = value;
  }
  return out;
}

/** Reads the configuration from an environment (process.env by default). Throws on invalid values. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = EnvSchema.safeParse(
    Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')),
  );
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new StartupError(`Invalid configuration: ${first.path.join('.')}: ${first.message}`);
  }
  const e = parsed.data;
  const port = overrides.port ?? e.PORT;
  const config: Config = {
    port,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    blobStore: e.BLOB_STORE,
    s3: s3Settings(e),
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    bootstrapApiKey: e.BOOTSTRAP_API_KEY,
    modelProfile: e.MODEL_PROFILE,
    modelsDir: path.resolve(e.MODELS_DIR),
    device: e.DEVICE,
    offline: e.OFFLINE,
    autoFetchModels: e.AUTO_FETCH_MODELS ?? null,
    modelHubUrl: e.MODEL_HUB_URL,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    signInRateLimitPerMinute: e.SIGN_IN_RATE_LIMIT_PER_MINUTE,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    maxModelBundleBytes: e.MAX_MODEL_BUNDLE_BYTES,
    uploadIdleSeconds: e.UPLOAD_IDLE_SECONDS,
    minFreeBytes: e.MIN_FREE_BYTES,
    dbCheckAtStart: e.DB_CHECK_AT_START,
    maxJsonBytes: e.MAX_JSON_BYTES,
    maxImagePixels: e.MAX_IMAGE_PIXELS,
    frameMaxSide: e.FRAME_MAX_SIDE,
    tokenTtlSeconds: e.TOKEN_TTL_SECONDS,
    allowPrivateImageUrls: e.ALLOW_PRIVATE_IMAGE_URLS,
    ffmpegPath: e.FFMPEG_PATH,
    ffprobePath: e.FFPROBE_PATH,
    shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
    inferenceQueueLength: e.INFERENCE_QUEUE_LENGTH,
    modelMemoryBudgetMB: e.MODEL_MEMORY_BUDGET_MB ?? null,
    ingestConcurrency: e.INGEST_CONCURRENCY,
    ingestOrder: e.INGEST_ORDER,
    ingestTextVectors: e.INGEST_TEXT_VECTORS,
    jobLeaseSeconds: e.JOB_LEASE_SECONDS,
    faceClusterThresholds: parseThresholds(e.FACE_CLUSTER_THRESHOLDS),
    inferenceNice: e.INFERENCE_NICE,
    outputRetentionHours: e.OUTPUT_RETENTION_HOURS,
    trashRetentionDays: e.TRASH_RETENTION_DAYS,
    generateMaxQueue: e.GENERATE_MAX_QUEUE,
    generateSyncTimeoutSeconds: e.GENERATE_SYNC_TIMEOUT_SECONDS,
    webDir: path.resolve(e.WEB_DIR ?? path.join(PACKAGE_ROOT, 'dist/web')),
    eventsHeartbeatSeconds: e.EVENTS_HEARTBEAT_SECONDS,
    eventsRetentionHours: e.EVENTS_RETENTION_HOURS,
    eventsMaxEvents: e.EVENTS_MAX_EVENTS,
    watchDirs: e.WATCH_DIRS ?? '',
    watchRoots: (e.WATCH_ROOTS ?? '')
      .split(':')
      .map((r) => r.trim())
      .filter(Boolean)
      .map((r) => path.resolve(r)),
    watchSettleMs: e.WATCH_SETTLE_MS,
    watchRescanSeconds: e.WATCH_RESCAN_SECONDS,
    role: e.ROLE,
    databaseUrl: e.DATABASE_URL,
    databaseSchema: e.DATABASE_SCHEMA,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    vectorSearch: e.VECTOR_SEARCH === 'on',
    backupDir: e.BACKUP_DIR ? path.resolve(e.BACKUP_DIR) : undefined,
    backupIntervalHours: e.BACKUP_INTERVAL_HOURS,
    backupKeep: e.BACKUP_KEEP,
  };
  return { ...config, ...overrides };
}
