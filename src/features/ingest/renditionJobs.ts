import { z } from 'zod';
import type { Services } from '../kernel/services.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { Logger } from '../../platform/logger.js';
import { enqueuePerItem } from './enqueuePerItem.js';
import { renderItem, type RenditionDeps } from './renditions.js';

/**
 * The `renditions` job: the thumbnails of one item's frames, for items that lack them: those stored before
 * renditions existed (the backfill) and those whose rendition stage failed during ingest (a full disk):
 * retried with backoff like every job, without analysing the item again.
 */
export const RENDITIONS_JOB = 'renditions';
/** After fresh uploads (0), re-indexing and catch-ups (10): existing items' thumbnails can wait for those. */
export const PRIORITY_RENDITIONS = 20;
/** The job's name in `job.progress` events. */
const PROGRESS_NAME = 'renditions';

const payload = z.object({ mediaId: z.string().regex(/^[0-9a-f]{32}$/) });

type RenditionJobDeps = RenditionDeps & Pick<Services, 'events'>;

export function registerRenditionJob(runner: JobRunner, deps: RenditionJobDeps): void {
  runner.register<{ mediaId: string }>(
    RENDITIONS_JOB,
    async (job, ctx) => {
      const media = await renderItem(deps, job.payload.mediaId, ctx.signal);
      if (media) deps.events?.jobProgress(PROGRESS_NAME, RENDITIONS_JOB, media.organizationId);
    },
    { parse: (p) => payload.parse(p) },
  );
}

/** Queues the renditions of one item (when its ingest could not make them); keyed by item, never twice. */
export async function enqueueRenditions(deps: Pick<Services, 'storage'>, mediaId: string): Promise<void> {
  await deps.storage.jobs.enqueue({
    type: RENDITIONS_JOB,
    payload: { mediaId },
    key: mediaId,
    priority: PRIORITY_RENDITIONS,
  });
}

export interface Backfill {
  /** Stops queueing (between pages) and waits for the page under way. */
  stop(): Promise<void>;
}

/**
 * The backfill, started with the job runner: a `renditions` job for every ready or failed item with a frame
 * that lacks renditions, queued page by page in the background (start-up does not wait for it), below every
 * other job. An organization with items queued hears how many are left through `job.progress` events.
 * Restarting during the backfill loses nothing: the queued jobs are durable, and the next start queues what
 * is still missing (jobs are keyed by item, so none twice).
 */
export function startRenditionBackfill(
  deps: Pick<Services, 'storage' | 'wakeJobs' | 'events'>,
  logger: Logger,
): Backfill {
  const stopping = new AbortController();
  const job = { type: RENDITIONS_JOB, priority: PRIORITY_RENDITIONS };
  const queueing = enqueuePerItem(
    deps,
    job,
    (after) => deps.storage.analysis.itemsLackingRenditions(500, after),
    stopping.signal,
  )
    .then(async (count) => {
      if (count === 0) return;
      logger.info('queued thumbnails for items that had none', { count });
      for (const org of await deps.storage.accounts.listOrganizations())
        deps.events?.jobProgress(PROGRESS_NAME, RENDITIONS_JOB, org.id);
    })
    .catch((err) => logger.warn('rendition backfill failed', { err }));
  return {
    stop: async () => {
      stopping.abort();
      await queueing;
    },
  };
}
