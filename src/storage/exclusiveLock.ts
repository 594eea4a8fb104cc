/** A lock held for one process (Storage.tryExclusiveLock). */
export interface ExclusiveLock {
  /** Resolves if the lock is lost without release() (its database connection broke); another process may hold it. */
  lost: Promise<void>;
  release(): Promise<void>;
}
