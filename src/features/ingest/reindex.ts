import { z } from 'zod';
import type { Services } from '../kernel/services.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { JobQueueDeps } from './jobs.js';
import { PRIORITY_REINDEX } from './pipeline.js';
import { NO_FILTERS } from '../../storage/browseQuery.js';

/**
 * Re-indexing after the embedding model changes: a `reembed` job per item
 * computes its frame and object embeddings with the current default model and
 * writes them BESIDE the old model's (vectors are keyed by object and model).
 * Search keeps answering from the old model until the new one covers every
 * object (src/features/search/scoring.ts, searchModel), then switches by itself.
 */
export const REEMBED_JOB = 'reembed';
/** The re-index's name in `job.progress` events. */
export const REINDEX_PROGRESS = 'reindex';
const payload = z.object({ mediaId: z.string().regex(/^[0-9a-f]{32}$/) });

export function registerReindexJobs(
  runner: JobRunner,
  deps: Pick<Services, 'storage' | 'blobs' | 'models' | 'events'>,
): void {
  runner.register<{ mediaId: string }>(
    REEMBED_JOB,
    async (job, ctx) => {
      await reembed(deps, job.payload.mediaId, ctx.signal);
      const media = await deps.storage.media.get(job.payload.mediaId);
      if (media) deps.events?.jobProgress(REINDEX_PROGRESS, REEMBED_JOB, media.organizationId);
    },
    { parse: (p) => payload.parse(p) },
  );
}

/** One item's object embeddings with the current default model, beside the old model's. */
async function reembed(deps: Pick<Services, 'storage' | 'blobs' | 'models'>, mediaId: string, signal: AbortSignal) {
  const info = deps.models.modelInfo();
  const objects = await deps.storage.analysis.objectsToReembed(mediaId);
  for (let i = 0; i < objects.length; i += 16) {
    if (signal.aborted) throw signal.reason;
    const batch = objects.slice(i, i + 16);
    const images = await Promise.all(batch.map((o) => deps.blobs.readBuffer(o.blobKey)));
    const vectors = await deps.models.embedImages(info.name, images);
    await deps.storage.analysis.addEmbeddings(
      batch.map((o, j) => ({
        objectId: o.objectId,
        modelId: info.id,
        similarityModel: 'objects' as const,
        vector: vectors[j],
      })),
    );
  }
}

/** Queues a `reembed` job for every active image and video of the organization; returns how many. */
export async function enqueueReindex(deps: JobQueueDeps, organizationId: string): Promise<number> {
  let count = 0;
  for (const c of await deps.storage.collections.list(organizationId)) {
    const ids = await deps.storage.media.browseIds(
      {
        collectionId: c.id,
        path: c.id.replace(/-/g, ''),
        recursive: true,
        ...NO_FILTERS,
        types: ['image', 'video'],
        sortBy: 'createdAt',
        sortDirection: 'asc',
        limit: 0,
        offset: 0,
      },
      10_000_000,
    );
    for (const id of ids)
      await deps.storage.jobs.enqueue({
        type: REEMBED_JOB,
        payload: { mediaId: id },
        key: id,
        priority: PRIORITY_REINDEX,
      });
    count += ids.length;
  }
  deps.wakeJobs();
  return count;
}
