import { z } from 'zod';
import type { Services } from '../kernel/services.js';
import { isPermanent, JobAbort } from '../../jobs/failures.js';
import type { JobRunner } from '../../jobs/runner.js';
import { CATCH_UP_JOB, catchUpIfInstalled, catchUpMedia } from './catchUp.js';
import { enqueuePerItem } from './enqueuePerItem.js';
import { registerRenditionJob } from './renditionJobs.js';
import { CLUSTER_FACES_JOB, clusterFacesJob, declaredThresholds, type ClusterFacesPayload } from '../faces/index.js';
import {
  describeFailure,
  ingestMedia,
  INGEST_JOB,
  PRIORITY_FRESH,
  type IngestDeps,
  type IngestPayload,
} from './pipeline.js';

/** The cluster-faces payload; one queued before the code said "collection" names its collection `datasetId`. */
export const clusterPayload = z.preprocess(
  (p) => (p && typeof p === 'object' && 'datasetId' in p ? { collectionId: p.datasetId } : p),
  z.object({ collectionId: z.string().nullable() }),
);

const payload = z.object({ mediaId: z.string().regex(/^[0-9a-f]{32}$/) });

/** What queueing jobs uses: the job store and the runner's wake-up. */
export type JobQueueDeps = Pick<Services, 'storage' | 'wakeJobs'>;

/**
 * The `ingest` job: runs the pipeline for one item. When the last attempt
 * fails (or the failure is permanent, like an undecodable video) the item is
 * marked `failed` with the reason in words; its file and everything else stay,
 * and POST /api/media/{id}/reprocess queues it again.
 */
export function registerIngestJobs(
  runner: JobRunner,
  deps: IngestDeps & JobQueueDeps & Pick<Services, 'events'>,
): void {
  runner.register<IngestPayload>(
    INGEST_JOB,
    async (job, ctx) => {
      try {
        const outcome = await ingestMedia(deps, job.payload.mediaId, ctx);
        if (outcome === 'done') {
          const media = await deps.storage.media.get(job.payload.mediaId);
          if (media) await enqueueClustering(deps, media.collectionId);
          await catchUpIfInstalled(deps, job.payload.mediaId);
        }
      } catch (err) {
        if (err instanceof JobAbort || ctx.signal.aborted) throw err; // shutdown or lost lease: the job runs again
        const final = isPermanent(err) || job.attempts >= job.maxAttempts;
        if (final) await deps.storage.media.setProcessingStatus(job.payload.mediaId, 'failed', describeFailure(err));
        throw err;
      }
    },
    { parse: (p) => payload.parse(p) },
  );
  registerCatchUpJob(runner, deps);
  registerRenditionJob(runner, deps);
  runner.register<ClusterFacesPayload>(
    CLUSTER_FACES_JOB,
    async (job, ctx) => {
      await clusterFacesJob(deps.storage.clusters, job.payload, {
        signal: ctx.signal,
        progress: ctx.progress,
        thresholds: deps.config.faceClusterThresholds,
        declaredThresholds: declaredThresholds(deps.models),
      });
    },
    { parse: (p) => clusterPayload.parse(p) },
  );
}

/**
 * The catch-up job (catchUp.ts): a ready item analysed again once a model it
 * waited for is installed. On its last failed attempt (a model that crashes)
 * the item becomes `failed`, with the reason.
 */
function registerCatchUpJob(runner: JobRunner, deps: IngestDeps & JobQueueDeps): void {
  runner.register<IngestPayload>(
    CATCH_UP_JOB,
    async (job, ctx) => {
      try {
        if ((await catchUpMedia(deps, job.payload.mediaId, ctx)) === 'done') {
          const media = await deps.storage.media.get(job.payload.mediaId);
          if (media) await enqueueClustering(deps, media.collectionId);
        }
      } catch (err) {
        if (err instanceof JobAbort || ctx.signal.aborted) throw err;
        if (isPermanent(err) || job.attempts >= job.maxAttempts)
          await deps.storage.media.setProcessingStatus(job.payload.mediaId, 'failed', describeFailure(err));
        throw err;
      }
    },
    { parse: (p) => payload.parse(p) },
  );
}

/** Queues face clustering of a collection a moment later, so a burst of uploads is clustered in one run. */
export async function enqueueClustering(deps: JobQueueDeps, collectionId: string | null) {
  await deps.storage.jobs.enqueue<ClusterFacesPayload>({
    type: CLUSTER_FACES_JOB,
    payload: { collectionId },
    key: collectionId ?? 'all',
    priority: 5,
    runAfter: new Date(Date.now() + 2000).toISOString(),
  });
  deps.wakeJobs();
}

/** Queues (or re-prioritises) the ingest of one item and wakes the runner. */
export async function enqueueIngest(deps: JobQueueDeps, mediaId: string, priority = PRIORITY_FRESH) {
  const job = await deps.storage.jobs.enqueue<IngestPayload>({
    type: INGEST_JOB,
    payload: { mediaId },
    key: mediaId,
    priority,
  });
  deps.wakeJobs();
  return job;
}

/**
 * Makes sure every unfinished item has its ingest job: the upload writes the
 * row before queueing the job, so a crash in between leaves a pending item
 * without one. Enqueueing is keyed by item, so this never duplicates a job.
 */
export async function resumeUnfinished(deps: JobQueueDeps): Promise<number> {
  return enqueuePerItem(deps, { type: INGEST_JOB, priority: PRIORITY_FRESH }, (after) =>
    deps.storage.media.unfinishedIds(500, after),
  );
}
