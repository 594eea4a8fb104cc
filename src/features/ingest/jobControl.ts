import { notFound } from '../../platform/errors.js';
import { requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import { jobScope } from './jobScope.js';
import { PHASE_JOBS } from './phases.js';

type ControlDeps = Pick<Services, 'storage' | 'wakeJobs'>;

/**
 * POST /api/jobs/:jobId/retry: a failed (or cancelled) job of any type that the caller's organization may see
 * (jobScope.ts: its item's, its collection's, its own, or the server's housekeeping) queued again with its attempts
 * reset (admin); an ingest phase's item becomes `pending` again. Another organization's job answers 404.
 */
export async function retryJob(deps: ControlDeps, principal: Principal, rawId: string) {
  requireRole(principal, 'admin');
  const id = Number(rawId);
  const job = Number.isSafeInteger(id) && id > 0 ? await deps.storage.jobs.get(id) : null;
  const scope = job ? await jobScope(deps, principal, job) : null;
  if (!job || !scope) throw notFound('job not found');
  const queued = await deps.storage.jobs.retry(job.id);
  if (!queued) return { id: job.id, status: job.status, retried: false };
  const phase = (PHASE_JOBS as readonly string[]).includes(job.type);
  if (queued.id === job.id && phase && scope.id)
    await deps.storage.media.setProcessingStatus(scope.id, 'pending', null);
  deps.wakeJobs();
  return { id: queued.id, status: queued.status, retried: queued.id === job.id };
}

/**
 * POST /api/jobs/retry-failed: every failed job of the server's queue queued again (admin; the queue is the
 * server's, as its figures in GET /api/jobs are). How many.
 */
export async function retryFailedJobs(deps: ControlDeps, principal: Principal) {
  requireRole(principal, 'admin');
  const queued = await deps.storage.jobs.retryFailed(null);
  if (queued) deps.wakeJobs();
  return { queued };
}

/**
 * POST /api/jobs/pause and /resume (admin): background work stops being claimed (what runs finishes), except a
 * fresh upload's first phases, so it still becomes searchable; resume takes everything up again.
 */
export async function pauseJobs(deps: ControlDeps, principal: Principal, paused: boolean) {
  requireRole(principal, 'admin');
  await deps.storage.jobs.setPaused(paused);
  if (!paused) deps.wakeJobs();
  return { paused: await deps.storage.jobs.isPaused() };
}
