/**
 * One claimed job's run (./runner.ts claims it): its handler called with a JobContext, its lease kept alive
 * by heartbeats while the handler runs (a lost lease aborts the handler), its timeout, and its outcome
 * recorded — succeeded, queued again after a backoff, released by a shutdown, or failed for good.
 */
import { isDiskFull } from '../platform/diskSpace.js';
import type { Logger } from '../platform/logger.js';
import { isPermanent, JobAbort, PermanentJobError } from './failures.js';
import type { HandlerOptions, JobContext, JobHandler } from './handler.js';
import type { Job, JobStore } from './types.js';

/** A job type's handler and its options, as JobRunner.register keeps them. */
export interface Registered {
  handler: JobHandler<unknown>;
  opts: HandlerOptions<unknown>;
}

/** A job claimed under a lease owner, with the controller that aborts its handler. */
export interface Claimed {
  job: Job;
  owner: string;
  controller: AbortController;
}

/** What running a job needs from its runner. */
export interface ExecutionDeps {
  store: JobStore;
  logger: Logger;
  /** Lease length; renewed every leaseMs / 3 while the handler runs. */
  leaseMs: number;
  /** The delay before the next attempt, given the attempt that failed (1-based). */
  backoff: (attempt: number) => number;
  /** Told when a job failed for want of disk space; such a job goes back to the queue without spending an attempt. */
  onDiskFull?: (err: unknown) => void;
}

/** At most one info-level progress line per job this often (the rest at debug). */
const PROGRESS_LOG_MS = 5_000;

const errorMessage = (err: unknown): string =>
  err instanceof Error ? err.message || err.name : typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err));

/**
 * Runs one claimed job to its end and records the outcome; never throws (a failure to record is logged, and
 * the job runs again once its lease expires).
 */
export async function executeJob(
  deps: ExecutionDeps,
  registered: Registered | undefined,
  { job, owner, controller }: Claimed,
): Promise<void> {
  const { store, leaseMs } = deps;
  const log = deps.logger.child({ jobId: job.id, jobType: job.type, attempt: job.attempts });
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const signal = controller.signal;

  let lost = false;
  const loseLease = () => {
    if (lost) return;
    lost = true;
    log.warn('job lease lost; aborting its handler', { durationMs: elapsed() });
    controller.abort(
      new JobAbort('lease_lost', 'the job lease was lost (expired and reclaimed, or the job was cancelled)'),
    );
  };
  const heartbeat = async (): Promise<boolean> => {
    if (lost) return false;
    try {
      const ok = await store.heartbeat(job.id, owner, leaseMs);
      if (!ok) loseLease();
      return ok;
    } catch (err) {
      // A transient database error: the lease is probably still ours; the next beat tries again.
      log.warn('job heartbeat failed', { err });
      return true;
    }
  };
  const beat = setInterval(() => void heartbeat(), Math.max(10, Math.floor(leaseMs / 3)));
  const timeout = registered?.opts.timeoutMs
    ? setTimeout(
        () => controller.abort(new JobAbort('timeout', `the job timed out after ${registered.opts.timeoutMs} ms`)),
        registered.opts.timeoutMs,
      )
    : null;

  let lastProgressLog = 0;
  const ctx: JobContext = {
    signal,
    heartbeat,
    logger: log,
    async progress(p) {
      const now = Date.now();
      if (now - lastProgressLog >= PROGRESS_LOG_MS) {
        lastProgressLog = now;
        log.info('job progress', { progress: p, durationMs: elapsed() });
      } else log.debug('job progress', { progress: p });
      if (!(await store.setProgress(job.id, owner, p))) loseLease();
    },
  };

  log.info('job started', {
    maxAttempts: job.maxAttempts,
    ...(job.lastError ? { previousError: job.lastError } : {}),
  });
  let outcome: { ok: true } | { ok: false; err: unknown };
  try {
    if (!registered) throw new PermanentJobError(`no handler is registered for job type ${job.type}`);
    let payload: unknown = job.payload;
    if (registered.opts.parse) {
      try {
        payload = registered.opts.parse(job.payload);
      } catch (err) {
        throw new PermanentJobError(`invalid job payload: ${errorMessage(err)}`, { cause: err });
      }
    }
    await registered.handler({ ...job, payload }, ctx);
    outcome = { ok: true };
  } catch (err) {
    outcome = { ok: false, err };
  } finally {
    clearInterval(beat);
    if (timeout) clearTimeout(timeout);
  }

  try {
    await settle(deps, job, owner, outcome, signal, log, elapsed());
  } catch (err) {
    // The job stays running under our lease; it expires and the job runs again.
    log.error('could not record the job outcome; it will run again after its lease expires', { err });
  }
}

async function settle(
  { store, backoff, onDiskFull }: ExecutionDeps,
  job: Job,
  owner: string,
  outcome: { ok: true } | { ok: false; err: unknown },
  signal: AbortSignal,
  log: Logger,
  durationMs: number,
): Promise<void> {
  if (outcome.ok) {
    if (await store.complete(job.id, owner)) log.info('job succeeded', { durationMs });
    else log.warn('job finished after losing its lease; its outcome was not recorded', { durationMs });
    return;
  }
  const err = outcome.err;
  const reason = signal.aborted && signal.reason instanceof JobAbort ? signal.reason : null;
  if (reason?.why === 'lease_lost') {
    log.warn('job stopped after losing its lease', { durationMs, err });
    return;
  }
  if (reason?.why === 'shutdown') {
    // Not the job's fault: back to the queue, attempt refunded.
    if (await store.release(job.id, owner)) log.info('job interrupted by shutdown; queued again', { durationMs });
    return;
  }
  if (onDiskFull && !reason && isDiskFull(err)) {
    // Not the job's fault either: the runner pauses until space frees (platform/diskSpace.ts), then it runs again.
    onDiskFull(err);
    if (await store.release(job.id, owner))
      log.warn('job stopped: the disk is full; queued again', { durationMs, err });
    return;
  }
  const message = reason?.why === 'timeout' ? reason.message : errorMessage(err);
  if (isPermanent(err)) {
    if (await store.fail(job.id, owner, message, null)) log.error('job failed permanently', { durationMs, err });
    return;
  }
  if (job.attempts >= job.maxAttempts) {
    if (await store.fail(job.id, owner, message, null)) {
      log.error('job failed after its last attempt', { durationMs, err, attempts: job.attempts });
    }
    return;
  }
  const delayMs = backoff(job.attempts);
  const retryAt = new Date(Date.now() + delayMs).toISOString();
  if (await store.fail(job.id, owner, message, retryAt)) {
    log.warn('job failed; will retry', { durationMs, err, retryAt, delayMs });
  }
}
