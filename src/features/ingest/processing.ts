import { enqueueIngest, type JobQueueDeps } from './jobs.js';
import { enqueueReindex, REEMBED_JOB, REINDEX_PROGRESS } from './reindex.js';
import { PHASE_JOBS, PHASE_NAMES, type IngestPayload, type PhaseJob } from './phases.js';
import { ingestProgress } from './progress.js';
import type { JobStatus } from '../../jobs/types.js';
import { inCallersOrganization, loadMedia, requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/** POST /api/admin/reindex: one `reembed` job per item of the caller's organization (progress: `job.progress` events). */
export async function reindex(deps: JobQueueDeps & Pick<Services, 'models' | 'events'>, principal: Principal) {
  requireRole(principal, 'admin');
  const queued = await enqueueReindex(deps, principal.organizationId);
  deps.events?.jobProgress(REINDEX_PROGRESS, REEMBED_JOB, principal.organizationId);
  return { queued, model: deps.models.modelInfo().id };
}

/** POST /api/media/{id}/reprocess: queue the item's analysis again (the user's own corrections survive it). */
export async function reprocess(
  deps: JobQueueDeps & Pick<Services, 'config' | 'events'>,
  principal: Principal,
  mediaId: string,
) {
  const media = await loadMedia(deps, principal, mediaId, 'member');
  if (media.type === 'folder')
    return { mediaId: media.id, status: 'skipped', message: 'folders have nothing to analyse' };
  await deps.storage.media.setProcessingStatus(media.id, 'pending', null);
  const job = await enqueueIngest(deps, media.id);
  return { mediaId: media.id, jobId: job.id, status: job.status };
}

/**
 * GET /api/jobs: queue depth for the whole server (numbers only), the ingest's progress for the caller's
 * organization (per phase: remaining items, measured rate, ETA; progress.ts) and the ingest jobs of the
 * caller's organization, every phase: running, failed with reasons, queued.
 */
export async function listJobs(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  q: { status?: JobStatus; limit: number; offset: number },
) {
  requireRole(principal, 'admin');
  const stats = await deps.storage.jobs.stats();
  const ingest = await ingestProgress(deps, principal.organizationId);
  const page = await deps.storage.jobs.list({ status: q.status, type: PHASE_JOBS, limit: q.limit, offset: q.offset });
  const jobs = [];
  for (const job of page.items) {
    const mediaId = (job.payload as IngestPayload).mediaId;
    const media = await deps.storage.media.get(mediaId);
    if (!media || !inCallersOrganization(principal, media)) continue;
    jobs.push({
      id: job.id,
      type: job.type,
      phase: PHASE_NAMES[job.type as PhaseJob],
      status: job.status,
      mediaId,
      mediaName: media.name,
      processingStatus: media.processingStatus,
      attempts: job.attempts,
      maxAttempts: job.maxAttempts,
      priority: job.priority,
      lastError: job.lastError,
      progress: job.progress,
      runAfter: job.runAfter,
      createdAt: job.createdAt,
      startedAt: job.startedAt,
      finishedAt: job.finishedAt,
    });
  }
  return {
    stats,
    paused: await deps.storage.jobs.isPaused(),
    ingest,
    jobs,
    pagination: {
      total: page.total,
      limit: q.limit,
      offset: q.offset,
      hasMore: q.offset + page.items.length < page.total,
    },
  };
}
