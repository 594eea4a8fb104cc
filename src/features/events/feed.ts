import type { EventFeedPort, Services } from '../kernel/services.js';
import { DomainError } from '../../platform/errors.js';
import { formatDiskState, formatOpen, formatReset, formatRetry } from './format.js';
import { jobProgressReporter, PROGRESS_EVERY_MS } from './jobProgress.js';
import { EventStream } from './stream.js';

/**
 * How often the feed looks at the log for events appended by another process sharing the database (this
 * process's own appends wake the streams at once): one cheap query, and the streams read only when the
 * newest id moved.
 */
export const CROSS_PROCESS_POLL_MS = 5000;
/** How often old events are trimmed from the log. */
export const TRIM_EVERY_MS = 10 * 60_000;

export interface EventFeedOptions {
  /** Between heartbeats (a comment line) on an open stream. */
  heartbeatMs: number;
  /** Events older than this are trimmed. */
  retentionMs: number;
  /** At most this many events are kept (the newest). */
  maxEvents: number;
  pollMs?: number;
  /** How often the remaining jobs are counted while some remain (job.progress). */
  progressEveryMs?: number;
}

/** The feed as the composition root holds it: the kernel's port, and stop() for shutdown. */
export interface EventFeed extends EventFeedPort {
  /** Ends the streams, stops the timers, makes the pending progress reports; call before closing storage. */
  stop(): Promise<void>;
}

/**
 * The live side of the event log: every open stream of GET /api/events, woken at once when this process
 * appends an event (EventStore.onAppend) and by a slow look at the log for other processes' appends; the
 * periodic trimming of the log; the job progress reports.
 */
export function createEventFeed(
  deps: Pick<Services, 'storage' | 'logger' | 'disk'>,
  options: EventFeedOptions,
): EventFeed {
  const { storage, logger } = deps;
  const streams = new Set<EventStream>();
  const progress = jobProgressReporter(deps, options.progressEveryMs ?? PROGRESS_EVERY_MS);
  let closing = false;
  let latestSeen = -1;
  const wakeAll = () => {
    for (const s of streams) s.wake();
  };
  const unsubscribe = storage.events.onAppend(wakeAll);
  // The disk filled or has room again: every open stream hears it at once (not through the log: see format.ts).
  const unsubscribeDisk = deps.disk?.onChange((state) => streams.forEach((s) => s.notice(formatDiskState(state))));
  const background = new Set<Promise<unknown>>();
  const inBackground = (what: string, work: () => Promise<unknown>) => {
    const done = work()
      .catch((err) => logger.warn(what, { err }))
      .finally(() => background.delete(done));
    background.add(done);
  };
  const poll = setInterval(() => {
    if (streams.size === 0) return;
    inBackground('event log poll failed', async () => {
      const { latest } = await storage.events.bounds();
      if (latest !== latestSeen) wakeAll();
      latestSeen = latest;
    });
  }, options.pollMs ?? CROSS_PROCESS_POLL_MS);
  poll.unref();
  const trim = () =>
    inBackground('event log trim failed', () =>
      storage.events.trim(new Date(Date.now() - options.retentionMs).toISOString(), options.maxEvents),
    );
  const trimmer = setInterval(trim, TRIM_EVERY_MS);
  trimmer.unref();
  trim();

  const closeAll = () => {
    closing = true;
    for (const s of streams) s.end();
  };
  return {
    async open({ organizationId, collectionId, lastEventId }) {
      if (closing) throw new DomainError('unavailable', 'the server is shutting down');
      const { trimmedThrough, latest } = await storage.events.bounds();
      if (closing) throw new DomainError('unavailable', 'the server is shutting down');
      let preamble = formatRetry();
      let cursor = lastEventId ?? latest;
      if (lastEventId !== null && (lastEventId < trimmedThrough || lastEventId > latest)) {
        preamble += formatReset(latest, lastEventId > latest ? 'unknown' : 'expired');
        cursor = latest;
      }
      preamble += formatOpen(cursor, collectionId, options.heartbeatMs);
      if (deps.disk?.full) preamble += formatDiskState(deps.disk.state());
      const stream = new EventStream(
        storage.events,
        { organizationId, collectionId },
        cursor,
        options.heartbeatMs,
        logger,
      );
      streams.add(stream);
      stream.onClose(() => streams.delete(stream));
      stream.start(preamble);
      return stream.out;
    },
    jobProgress: (name, jobType, organizationId, summary) => progress.touch(name, jobType, organizationId, summary),
    closeAll,
    async stop() {
      closeAll();
      clearInterval(poll);
      clearInterval(trimmer);
      unsubscribe();
      unsubscribeDisk?.();
      await progress.stop();
      await Promise.all([...background]);
    },
  };
}
