/**
 * Wake-ups of idle job runners from other processes: an engine whose queue is shared by several processes
 * (PostgreSQL: NOTIFY when a job becomes queued) tells this process, so that its runner claims at once
 * instead of at its next poll. Polling stays the fallback: a wake-up is a hint, never the only way a job is
 * found. SQLite has none (one process; its runner is woken directly by wakeJobs).
 */
export interface JobWakeups {
  /** Calls `listener` when a job may have become claimable; returns the unsubscribe. */
  onJobQueued(listener: () => void): () => void;
}
