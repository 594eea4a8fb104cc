/**
 * The durable job queue's records and its storage interface. The queue lives in
 * the database (SQLite today: src/storage/sqlite/jobStore.ts); the worker loop
 * that drives it is src/jobs/runner.ts.
 *
 * Delivery is at-least-once: a job whose worker crashes, stalls past its lease
 * or loses its lease runs again, so every handler must be idempotent.
 */

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export const JOB_STATUSES: readonly JobStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

export interface Job<P = unknown> {
  /** Increasing; never reused. */
  id: number;
  type: string;
  payload: P;
  /** Dedupe key: at most one queued or running job per (type, key). */
  key: string | null;
  /** Lower runs first (fresh uploads 0, re-indexing 10). */
  priority: number;
  status: JobStatus;
  /** Claims so far, the current one included. */
  attempts: number;
  maxAttempts: number;
  /** ISO; not claimed before this moment (first run or retry backoff). */
  runAfter: string;
  /** Who holds the lease while running (opaque; the runner uses a fresh token per claim). */
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  /** The latest failure's message; kept when a later attempt succeeds. */
  lastError: string | null;
  /** Whatever the handler last reported for a long run; null when none. */
  progress: unknown;
  createdAt: string;
  updatedAt: string;
  /** When the latest attempt started. */
  startedAt: string | null;
  /** When the job reached succeeded, failed or cancelled. */
  finishedAt: string | null;
}

export interface NewJob<P = unknown> {
  type: string;
  payload: P;
  /** Dedupe key: enqueuing the same (type, key) while one is queued or running returns that one. */
  key?: string | null;
  /** Default 0. */
  priority?: number;
  /** Default 5. */
  maxAttempts?: number;
  /** ISO; default now. */
  runAfter?: string;
}

export interface JobCounts {
  queued: number;
  running: number;
  succeeded: number;
  failed: number;
  cancelled: number;
}

export interface JobStats extends JobCounts {
  /** Queued jobs waiting for their run_after (backoff or delay), included in `queued`. */
  delayed: number;
  /** created_at of the oldest queued job, null when none. */
  oldestQueuedAt: string | null;
  byType: Record<string, JobCounts>;
}

/**
 * Storage of the queue. Each method is atomic on its own. Methods that act on a
 * running job take the lease owner and change nothing (returning false) when
 * the job is no longer running under that owner: the lease was lost (expired
 * and reclaimed) or the job was cancelled.
 */
export interface JobStore {
  /**
   * Inserts a queued job. With a key, when a job of the same (type, key) is
   * queued or running, returns that one instead; a queued one takes the lower
   * (more urgent) priority and the earlier run_after of the two.
   */
  enqueue<P>(job: NewJob<P>): Promise<Job<P>>;
  /**
   * Atomically takes one job and marks it running under `owner` with a lease of
   * `leaseMs` from `now`, attempts + 1: a running job whose lease expired (a
   * crashed worker's; reclaimed first), else the queued job of lowest priority,
   * then earliest run_after, then id, whose run_after ≤ now. `types` null takes
   * any type. An expired job that already used all its attempts is marked failed
   * instead of being handed out. Null when nothing is due. `order` 'newest': among the queued jobs of the
   * lowest priority due, the latest run_after, then id (reclaims still come first, oldest first).
   */
  claim(
    owner: string,
    types: readonly string[] | null,
    leaseMs: number,
    now?: Date,
    order?: 'oldest' | 'newest',
  ): Promise<Job | null>;
  /** The distinct lease owners of running jobs (for a starting runner to spot a dead process's leases). */
  runningLeaseOwners(): Promise<string[]>;
  /**
   * Ends now the leases of running jobs held by exactly these owners (their holder is known to be dead),
   * so that the next claim reclaims them as it would an expired lease. How many jobs.
   */
  expireLeases(owners: readonly string[], now?: Date): Promise<number>;
  /** Extends the lease to now + leaseMs; false when the lease was lost. */
  heartbeat(id: number, owner: string, leaseMs: number): Promise<boolean>;
  /** running → succeeded; false when the lease was lost. */
  complete(id: number, owner: string): Promise<boolean>;
  /** Records the error; `retryAt` (ISO) → queued again from then, null → failed for good. False when the lease was lost. */
  fail(id: number, owner: string, error: string, retryAt: string | null): Promise<boolean>;
  /**
   * running → queued (due at `runAfter`, default now) without spending the
   * attempt: for a worker that shuts down mid-job. False when the lease was lost.
   */
  release(id: number, owner: string, runAfter?: string): Promise<boolean>;
  setProgress(id: number, owner: string, progress: unknown): Promise<boolean>;
  get(id: number): Promise<Job | null>;
  /** Newest first. `type`: one type or any of several. */
  list(query: {
    status?: JobStatus;
    type?: string | readonly string[];
    limit: number;
    offset?: number;
  }): Promise<{ items: Job[]; total: number }>;
  /**
   * The latest `limit` succeeded jobs of a type (newest id first), with when their last attempt started and when
   * they finished: what a rate of work is measured from (a pruned job is no longer counted).
   */
  recentRuns(type: string, limit: number): Promise<Array<{ startedAt: string; finishedAt: string }>>;
  /** Which of these keys have a queued or running job of one of these types. */
  activeKeys(types: readonly string[], keys: readonly string[]): Promise<Set<string>>;
  stats(now?: Date): Promise<JobStats>;
  /**
   * A failed or cancelled job → queued now with attempts reset. When another
   * job of the same (type, key) is queued or running, returns that one and leaves
   * this one as it is. Null when there is no such failed or cancelled job.
   */
  retry(id: number): Promise<Job | null>;
  /** Every failed job (of these types; null: any) → queued now, as retry() does one by one; how many were queued. */
  retryFailed(types: readonly string[] | null): Promise<number>;
  /**
   * Pauses (or resumes) background work for every runner sharing the queue that honours it (JobRunner's
   * `pausable`): while paused they claim only the types they keep running. Jobs already running finish.
   */
  setPaused(paused: boolean): Promise<void>;
  /** When background work was paused (ISO), or null while it runs. */
  isPaused(): Promise<string | null>;
  /** Cancels the queued or running job; a running one's worker finds out at its next heartbeat. */
  cancel(id: number): Promise<boolean>;
  /** Cancels the queued or running job with this (type, key); how many (0 or 1). */
  cancelByKey(type: string, key: string): Promise<number>;
  /** Deletes succeeded (and cancelled) jobs that finished before `olderThan` (ISO); how many. */
  prune(olderThan: string): Promise<number>;
}
