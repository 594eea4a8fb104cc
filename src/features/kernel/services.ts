import type { Readable } from 'node:stream';
import type { Config } from '../../config.js';
import type { BlobStore } from '../../files/blobStore.js';
import type { FileUrls } from '../../files/fileUrls.js';
import type { TempOutputs } from '../../files/tempOutputs.js';
import type { Job } from '../../jobs/types.js';
import type { DiskSpace } from '../../platform/diskSpace.js';
import type { Logger } from '../../platform/logger.js';
import type { VisionModels } from '../../models/types.js';
import type { ModelProvisioner } from '../../models/provisioner.js';
import type { SearchIndexes } from '../../index/searchIndexes.js';
import type { Storage } from '../../storage/storage.js';
import type { Role } from '../../storage/types.js';

/**
 * The image generation queue as the kernel sees it: a durable queue that runs one generation at a time.
 * Declared here, not taken from features/generate, so that the kernel imports no feature: the generate
 * feature builds it (createGenerationQueue) and reads its own payloads back; the composition root starts
 * and stops it; edit only asks whether it runs.
 */
export interface GenerationQueuePort<Payload = unknown> {
  start(): void;
  /** Stops taking jobs; resolves once the running one ended or `graceMs` passed. */
  stop(graceMs: number, killMs?: number): Promise<unknown>;
  /** Queues a job, or refuses with rate_limited when too many wait. */
  enqueue(payload: Payload): Promise<Job>;
  get(id: number): Promise<Job | null>;
  /** Waits until the job settles or `timeoutMs` passes; returns its latest record. */
  wait(id: number, timeoutMs: number): Promise<Job | null>;
}

/** What is left of a piece of work for an organization, with more to say about it (sent as is). */
export type ProgressSummary = (organizationId: string) => Promise<{ remaining: number } & object>;

/**
 * The live event feed of GET /api/events as the kernel sees it (declared here so that the kernel imports no
 * feature): features/events builds it over the event log (createEventFeed), the composition root ends it
 * at shutdown, and job handlers report their progress through it.
 */
export interface EventFeedPort {
  /**
   * A Server-Sent Events stream of the organization's events (with `collectionId`, item events of that
   * collection only): those after `lastEventId` first (null: from now on), then each as it happens, until the
   * client goes or closeAll() is called.
   */
  open(request: { organizationId: string; collectionId: string | null; lastEventId: number | null }): Promise<Readable>;
  /**
   * A job of this type for an item of the organization was queued or finished: how many are left is appended
   * as a `job.progress` event (named `name`), at once and then as it changes, until none are left. With
   * `summary`, it counts what is left instead (and the event carries the rest of its answer: the ingest's phases).
   */
  jobProgress(name: string, jobType: string, organizationId: string, summary?: ProgressSummary): void;
  /** Ends every open stream and refuses new ones (the server is shutting down). */
  closeAll(): void;
}

/**
 * What use cases receive: the stores, indexes and helpers they work with. Built once by the composition
 * root (src/app.ts); tests build their own over temp directories. A use case names the members it needs
 * with `Pick<Services, ...>` (or a small interface), so the whole bag is only ever handed over by routes.
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
  /** The background download of missing models (AUTO_FETCH_MODELS) and every model's state; absent in scripts. */
  modelFetch?: ModelProvisioner;
  /** The image generation queue (one generation at a time); absent in scripts that build their own services. */
  generation?: GenerationQueuePort;
  /** The live event streams (GET /api/events) and job progress reports; absent in scripts. */
  events?: EventFeedPort;
  /** Free space on DATA_DIR (MIN_FREE_BYTES): uploads that would not fit answer 507, jobs pause while it is full. */
  disk?: DiskSpace;
  /** Wakes the job runner after something was queued (a no-op when none runs in this process). */
  wakeJobs: () => void;
  /** Asks the model watcher to look for newly installed models now (after a fetch or an import); absent without one. */
  modelsChanged?: () => void;
  /** Tells the watched-folder service that the configured folders changed (features/watch). */
  watchesChanged?: () => void;
  /** HMAC key for Bearer tokens (kept in the database's settings). */
  tokenKey: Buffer;
}

/**
 * Who is calling: resolved from an API key or a Bearer token (src/features/accounts/auth.ts), or from a
 * signed-in browser's session cookie (src/features/accounts/sessions.ts). Exactly one of keyId and sessionId
 * is set.
 */
export interface Principal {
  userId: string;
  /** The key's organization, or the one the session currently acts in. */
  organizationId: string;
  /** A key's role capped by the user's membership; for a session, the membership's role. */
  role: Role;
  /** The API key behind the request (directly or through a Bearer token); null for a session. */
  keyId: string | null;
  /** The browser session behind the request; null for an API key or token. */
  sessionId: string | null;
}
