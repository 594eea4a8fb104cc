import { z } from 'zod';
import type { Services } from '../domain/services.js';
import { isPermanent, JobAbort, type JobRunner } from '../jobs/runner.js';
import { describeFailure, ingestMedia, INGEST_JOB, PRIORITY_FRESH, type IngestPayload } from './pipeline.js';

const payload = z.object({ mediaId: z.string().regex(/^[0-9a-f]{32}$/) });

/**
 * The `ingest` job: runs the pipeline for one item. When the last attempt
 * fails (or the failure is permanent, like an undecodable video) the item is
 * marked `failed` with the reason in words; its file and everything else stay,
 * and POST /api/media/{id}/reprocess queues it again.
 */
export function registerIngestJobs(runner: JobRunner, s: Services): void {
  runner.register<IngestPayload>(
    INGEST_JOB,
    async (job, ctx) => {
      try {
        await ingestMedia(s, job.payload.mediaId, ctx);
      } catch (err) {
        if (err instanceof JobAbort || ctx.signal.aborted) throw err; // shutdown or lost lease: the job runs again
        const final = isPermanent(err) || job.attempts >= job.maxAttempts;
        if (final) await s.storage.media.setProcessingStatus(job.payload.mediaId, 'failed', describeFailure(err));
        throw err;
      }
    },
    { parse: (p) => payload.parse(p) },
  );
}

/** Queues (or re-prioritises) the ingest of one item and wakes the runner. */
export async function enqueueIngest(s: Services, mediaId: string, priority = PRIORITY_FRESH) {
  const job = await s.storage.jobs.enqueue<IngestPayload>({ type: INGEST_JOB, payload: { mediaId }, key: mediaId, priority });
  s.wakeJobs();
  return job;
}

/**
 * Makes sure every unfinished item has its ingest job: the upload writes the
 * row before queueing the job, so a crash in between leaves a pending item
 * without one. Enqueueing is keyed by item, so this never duplicates a job.
 */
export async function resumeUnfinished(s: Services): Promise<number> {
  let after = '';
  let count = 0;
  for (;;) {
    const ids = await s.storage.media.unfinishedIds(500, after);
    if (ids.length === 0) return count;
    for (const id of ids) await s.storage.jobs.enqueue<IngestPayload>({ type: INGEST_JOB, payload: { mediaId: id }, key: id, priority: PRIORITY_FRESH });
    count += ids.length;
    after = ids[ids.length - 1];
    s.wakeJobs();
  }
}
