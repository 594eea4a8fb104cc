/** What a job handler is given and how it is registered (src/jobs/runner.ts runs it). */
import type { Logger } from '../platform/logger.js';
import type { Job } from './types.js';

export interface JobContext {
  /**
   * Aborted when the handler should stop: the lease was lost (expired and
   * reclaimed elsewhere, or the job was cancelled), the runner is shutting down
   * and the grace period ran out, or the type's timeout passed. `signal.reason`
   * is a JobAbort saying which.
   */
  signal: AbortSignal;
  /** Extends the lease now (the runner also does every leaseMs / 3); false when the lease was lost. */
  heartbeat(): Promise<boolean>;
  /** Stores progress on the job (visible in listings) and logs it, at most every few seconds at info level. */
  progress(progress: unknown): Promise<void>;
  /** Bound to the job: jobId, jobType, attempt. */
  logger: Logger;
}

export type JobHandler<T> = (job: Job<T>, ctx: JobContext) => Promise<void>;

export interface HandlerOptions<T> {
  /** Validates the stored payload before the handler sees it; a throw fails the job for good. */
  parse?: (payload: unknown) => T;
  /** Aborts the handler after this long (counts as a retryable failure). */
  timeoutMs?: number;
}
