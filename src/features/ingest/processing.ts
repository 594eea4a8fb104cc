import { enqueueIngest, type JobQueueDeps } from './jobs.js';
import { enqueueReindex, REEMBED_JOB, REINDEX_PROGRESS } from './reindex.js';
import { PHASE_NAMES } from './phases.js';
import { ingestProgress, measuredRate, RATE_SAMPLE } from './progress.js';
import { jobScope, progressFigures, type JobScope } from './jobScope.js';
import type { Job, JobStats, JobStatus } from '../../jobs/types.js';
import { loadMedia, requireRole } from '../kernel/access.js';
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
 * GET /api/jobs: queue depth per job type for the whole server (numbers, with each type's measured rate and ETA),
 * the ingest's progress for the caller's organization (per phase: remaining items, measured rate, ETA; progress.ts)
 * and the jobs of every type the caller's organization may see (jobScope.ts): running with their progress (rate
 * and ETA where the job reports how far of how much), failed with their reason, queued. Another organization's
 * jobs on the page are left out.
 */
export async function listJobs(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  q: { status?: JobStatus; type?: string; limit: number; offset: number },
) {
  requireRole(principal, 'admin');
  const stats = await deps.storage.jobs.stats();
  const ingest = await ingestProgress(deps, principal.organizationId);
  const page = await deps.storage.jobs.list({ status: q.status, type: q.type, limit: q.limit, offset: q.offset });
  const jobs = [];
  for (const job of page.items) {
    const scope = await jobScope(deps, principal, job);
    if (scope) jobs.push(presentJob(job, scope));
  }
  return {
    stats,
    types: await typeDepths(deps, stats),
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

/** One job as GET /api/jobs lists it. */
function presentJob(job: Job, scope: JobScope) {
  const item = scope.kind === 'item';
  return {
    id: job.id,
    type: job.type,
    phase: (PHASE_NAMES as Record<string, string>)[job.type] ?? job.type,
    status: job.status,
    scope,
    mediaId: item ? scope.id : null,
    mediaName: item ? scope.name : null,
    processingStatus: scope.processingStatus,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    priority: job.priority,
    lastError: job.lastError,
    progress: job.progress,
    figures: job.status === 'running' ? progressFigures(job.progress, job.startedAt) : null,
    runAfter: job.runAfter,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
  };
}

/** Every job type in the queue with its depth, and how fast its jobs finished lately (the server's). */
async function typeDepths(deps: Pick<Services, 'storage'>, stats: JobStats, now = Date.now()) {
  const out = [];
  for (const [type, c] of Object.entries(stats.byType).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const rate = measuredRate(await deps.storage.jobs.recentRuns(type, RATE_SAMPLE), now);
    const left = c.queued + c.running;
    const round = (n: number) => Math.round(n * 1000) / 1000;
    out.push({
      type,
      ...c,
      ratePerSecond: rate === null ? null : round(rate),
      etaSeconds: left === 0 ? 0 : rate === null ? null : round(left / rate),
    });
  }
  return out;
}
