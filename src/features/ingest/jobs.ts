import { z } from 'zod';
import type { Services } from '../kernel/services.js';
import { isPermanent, JobAbort } from '../../jobs/failures.js';
import { isDiskFull } from '../../platform/diskSpace.js';
import type { JobRunner } from '../../jobs/runner.js';
import { CATCH_UP_JOB, catchUpIfInstalled, catchUpMedia } from './catchUp.js';
import type { JobContext } from '../../jobs/handler.js';
import { embedMedia } from './frameEmbedding.js';
import {
  ANALYZE_JOB,
  EMBED_JOB,
  INGEST_JOB,
  PHASE_JOBS,
  phasePriority,
  type IngestPayload,
  type PhaseJob,
} from './phases.js';
import { registerRenditionJob } from './renditionJobs.js';
import { enqueueWebVideo, registerWebVideoJob } from './webVideoJob.js';
import { CLUSTER_FACES_JOB, clusterFacesJob, declaredThresholds, type ClusterFacesPayload } from '../faces/index.js';
import { analyzeMedia, describeFailure, prepareMedia, type IngestDeps } from './pipeline.js';
import { INGEST_PROGRESS, ingestProgress } from './progress.js';

/** The cluster-faces payload; one queued before the code said "collection" names its collection `datasetId`. */
export const clusterPayload = z.preprocess(
  (p) => (p && typeof p === 'object' && 'datasetId' in p ? { collectionId: p.datasetId } : p),
  z.object({ collectionId: z.string().nullable() }),
);

const payload = z.object({ mediaId: z.string().regex(/^[0-9a-f]{32}$/) });

/** What queueing jobs uses: the job store and the runner's wake-up. */
export type JobQueueDeps = Pick<Services, 'storage' | 'wakeJobs'>;

/** What a phase's job runs (pipeline.ts, frameEmbedding.ts): 'gone' when the item is no longer there. */
type PhaseRun = (
  deps: IngestDeps,
  mediaId: string,
  ctx: JobContext & { checkpoint?: unknown },
) => Promise<'done' | 'gone'>;
type IngestJobDeps = IngestDeps & JobQueueDeps & Pick<Services, 'events'>;

/**
 * The ingest phases' jobs (phases.ts), each queueing the next when done; after the last, face clustering
 * and, when a model the item waits for was installed meanwhile, its catch-up. When a phase's last attempt
 * fails (or the failure is permanent, like an undecodable video) the item is marked `failed` with the
 * reason in words; its file and everything else stay, and POST /api/media/{id}/reprocess queues it again.
 */
export function registerIngestJobs(runner: JobRunner, deps: IngestJobDeps): void {
  registerPhase(runner, deps, INGEST_JOB, prepareMedia, (id) => enqueuePhase(deps, EMBED_JOB, id));
  registerPhase(runner, deps, EMBED_JOB, embedMedia, (id) => enqueuePhase(deps, ANALYZE_JOB, id));
  registerPhase(runner, deps, ANALYZE_JOB, analyzeMedia, async (id) => {
    const media = await deps.storage.media.get(id);
    if (media) await enqueueClustering(deps, media.collectionId);
    if (media) await enqueueWebVideo(deps, media);
    await catchUpIfInstalled(deps, id);
  });
  registerCatchUpJob(runner, deps);
  registerRenditionJob(runner, deps);
  registerWebVideoJob(runner, deps);
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

function registerPhase(
  runner: JobRunner,
  deps: IngestJobDeps,
  type: PhaseJob,
  run: PhaseRun,
  next: (mediaId: string) => Promise<unknown>,
): void {
  runner.register<IngestPayload>(
    type,
    async (job, ctx) => {
      const { mediaId } = job.payload;
      try {
        if ((await run(deps, mediaId, { ...ctx, checkpoint: job.progress })) === 'done') await next(mediaId);
      } catch (err) {
        if (err instanceof JobAbort || ctx.signal.aborted) throw err; // shutdown or lost lease: the job runs again
        // A full disk is not the item's fault: the job goes back to the queue (jobs/execution.ts), the item waits.
        const final = !isDiskFull(err) && (isPermanent(err) || job.attempts >= job.maxAttempts);
        if (final) await deps.storage.media.setProcessingStatus(mediaId, 'failed', describeFailure(err));
        throw err;
      } finally {
        const media = await deps.storage.media.get(mediaId).catch(() => null);
        if (media) reportProgress(deps, media.organizationId);
      }
    },
    { parse: (p) => payload.parse(p) },
  );
}

/** `job.progress` events named `ingest` while the organization's items are ingested: the summary of progress.ts. */
function reportProgress(deps: Pick<Services, 'storage' | 'events'>, organizationId: string): void {
  deps.events?.jobProgress(INGEST_PROGRESS, INGEST_JOB, organizationId, (org) => ingestProgress(deps, org));
}

/** Queues one phase of an item at its priority (phases.ts) and wakes the runner. */
export async function enqueuePhase(deps: JobQueueDeps & Pick<Services, 'config'>, type: PhaseJob, mediaId: string) {
  const job = await deps.storage.jobs.enqueue<IngestPayload>({
    type,
    payload: { mediaId },
    key: mediaId,
    priority: phasePriority(deps.config, type),
  });
  deps.wakeJobs();
  return job;
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
        if (!isDiskFull(err) && (isPermanent(err) || job.attempts >= job.maxAttempts))
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

/**
 * Queues (or re-prioritises) the ingest of one item from its first phase and wakes the runner. Its jobs of
 * the later phases, queued or running, are cancelled first: they would analyse frames about to be replaced
 * (a reprocess), and phase 1 queues them again.
 */
export async function enqueueIngest(deps: JobQueueDeps & Pick<Services, 'config' | 'events'>, mediaId: string) {
  for (const type of [EMBED_JOB, ANALYZE_JOB]) await deps.storage.jobs.cancelByKey(type, mediaId);
  const job = await enqueuePhase(deps, INGEST_JOB, mediaId);
  const media = await deps.storage.media.get(mediaId);
  if (media) reportProgress(deps, media.organizationId);
  return job;
}

/**
 * Makes sure every unfinished item has an ingest job: the upload writes the row before queueing the job,
 * so a crash in between leaves a pending item without one. An item with a job of any phase queued or
 * running is left to it (its chain goes on), so a restart during a big import queues nothing again.
 */
export async function resumeUnfinished(deps: JobQueueDeps & Pick<Services, 'config'>): Promise<number> {
  let after = '';
  let count = 0;
  for (;;) {
    const ids = await deps.storage.media.unfinishedIds(500, after);
    if (ids.length === 0) return count;
    const busy = await deps.storage.jobs.activeKeys(PHASE_JOBS, ids);
    for (const id of ids.filter((i) => !busy.has(i))) {
      await enqueuePhase(deps, INGEST_JOB, id);
      count++;
    }
    after = ids[ids.length - 1];
  }
}
