import type { JobWakeups } from '../../jobs/wakeups.js';
import type { PgListener } from '../../platform/pgListener.js';

/** The NOTIFY channel of migration 020: a job became queued (enqueued, retried, released, retried after a failure). */
export const JOBS_CHANNEL = 'lumen_jobs';

/**
 * Job wake-ups on PostgreSQL: LISTEN on JOBS_CHANNEL, on the storage's listening connection. The channel is
 * subscribed at once (make this before the listener starts), so the LISTEN is in place from the first
 * connection, not from whenever a runner subscribes.
 */
export function pgJobWakeups(listener: PgListener): JobWakeups {
  const subscribers = new Set<() => void>();
  listener.on(JOBS_CHANNEL, () => {
    for (const fn of [...subscribers]) fn();
  });
  return {
    onJobQueued(fn) {
      subscribers.add(fn);
      return () => void subscribers.delete(fn);
    },
  };
}
