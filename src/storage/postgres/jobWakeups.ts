import type { JobWakeups } from '../../jobs/wakeups.js';
import type { PgListener } from '../../platform/pgListener.js';

/** The NOTIFY channel of migration 020: a job became queued (enqueued, retried, released, retried after a failure). */
export const JOBS_CHANNEL = 'lumen_jobs';

/** Job wake-ups on PostgreSQL: LISTEN on JOBS_CHANNEL, on the storage's listening connection. */
export function pgJobWakeups(listener: PgListener): JobWakeups {
  return { onJobQueued: (fn) => listener.on(JOBS_CHANNEL, fn) };
}
