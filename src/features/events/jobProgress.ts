import type { ProgressSummary, Services } from '../kernel/services.js';

/** While jobs of a type remain for an organization, their count is looked at this often, at most. */
export const PROGRESS_EVERY_MS = 2000;
/**
 * Counting reads every unfinished job of the type, on the event loop (a measurable time once a backfill
 * queues hundreds of thousands: docs/measurements/features.md): the next look waits at least this many
 * times as long as the last took, so counting never takes more than a few percent of the server's time.
 */
const COST_FACTOR = 50;

interface Watch {
  name: string;
  jobType: string;
  organizationId: string;
  summary: ProgressSummary | undefined;
  /** The remaining count last reported; 0 before any (an organization with nothing queued hears nothing). */
  last: number;
  timer: NodeJS.Timeout | null;
}

/**
 * `job.progress` events: once a job of a type is queued or finishes for an organization, its remaining
 * count (queued and running jobs of that type on the organization's items) is appended to the log at
 * once, then looked at again every `everyMs` until it is 0, and appended each time it changed: the first
 * report is immediate, a burst of finished jobs makes one event, and the last one, 0 with status `done`,
 * always comes (the job that reports is itself still `running` while its handler runs, so only a later
 * look can count it finished). Jobs run by another process sharing the database are counted too.
 */
export function jobProgressReporter(deps: Pick<Services, 'storage' | 'logger'>, everyMs = PROGRESS_EVERY_MS) {
  const watches = new Map<string, Watch>();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;

  const report = async (w: Watch) => {
    const summary = w.summary ? await w.summary(w.organizationId) : null;
    const remaining = summary?.remaining ?? (await deps.storage.media.pendingItemJobs(w.jobType, w.organizationId));
    if (remaining !== w.last) {
      w.last = remaining;
      await deps.storage.events.append({
        type: 'job.progress',
        organizationId: w.organizationId,
        collectionId: null,
        mediaId: null,
        data: { job: w.name, jobType: w.jobType, ...summary, remaining, status: remaining > 0 ? 'running' : 'done' },
      });
    }
    return remaining;
  };

  const look = (w: Watch) => {
    w.timer = null;
    const started = Date.now();
    const done: Promise<void> = report(w)
      .then(
        (remaining) => remaining > 0,
        (err) => {
          deps.logger.warn('job progress report failed', { err });
          return true; // tried again at the next look
        },
      )
      .then((again) => {
        if (again && !stopped) {
          w.timer = setTimeout(() => look(w), Math.max(everyMs, (Date.now() - started) * COST_FACTOR));
          w.timer.unref();
        } else watches.delete(`${w.jobType}\u0000${w.organizationId}`);
      })
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };

  return {
    /** A job of `jobType` (shown as `name`) was queued or finished for the organization (summary: see EventFeedPort). */
    touch(name: string, jobType: string, organizationId: string, summary?: ProgressSummary): void {
      const key = `${jobType}\u0000${organizationId}`;
      if (stopped || watches.has(key)) return; // being watched: the next look counts it
      const w: Watch = { name, jobType, organizationId, summary, last: 0, timer: null };
      watches.set(key, w);
      look(w);
    },
    /** Stops watching after one last look at each (a shutdown must not swallow a final report). */
    async stop(): Promise<void> {
      stopped = true;
      await Promise.all([...inFlight]);
      for (const w of watches.values()) {
        if (w.timer) clearTimeout(w.timer);
        look(w);
      }
      await Promise.all([...inFlight]);
    },
  };
}
