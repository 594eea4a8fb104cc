/**
 * The Server-Sent Events text of GET /api/events (the format: WHATWG HTML, "Server-sent events"): each
 * message is `id:`, `event:` and one `data:` line of JSON, ended by a blank line; a line starting with `:`
 * is a comment (the heartbeat). JSON.stringify escapes line breaks, so one data line always suffices.
 */
import type { DiskState } from '../../platform/diskSpace.js';
import type { EventRecord } from '../../storage/types.js';

/** How long a browser's EventSource waits before reconnecting after the connection drops. */
export const RETRY_MS = 3000;

const message = (id: number, event: string, data: Record<string, unknown>) =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * An event of the log as clients read it: `datasetId` and `mediaId` first (null for organization-wide
 * events), the event's own fields, and `at`, when it happened.
 */
export function presentEvent(e: EventRecord): Record<string, unknown> {
  return { datasetId: e.collectionId, mediaId: e.mediaId, ...e.data, at: e.createdAt };
}

export const formatEvent = (e: EventRecord): string => message(e.id, e.type, presentEvent(e));

/** The first lines of every stream: the reconnection delay. */
export const formatRetry = (): string => `retry: ${RETRY_MS}\n\n`;

/**
 * `stream.open`: sent once the stream is set up, carrying the id it continues from, so that a client that
 * reconnects before any event arrived still resumes from here (EventSource resends the last id it saw).
 */
export const formatOpen = (lastEventId: number, collectionId: string | null, heartbeatMs: number): string =>
  message(lastEventId, 'stream.open', {
    lastEventId,
    datasetId: collectionId,
    heartbeatSeconds: heartbeatMs / 1000,
    at: new Date().toISOString(),
  });

/**
 * `reset`: the client's Last-Event-ID is older than the log keeps (or newer than any id handed out: another
 * database), so what it missed cannot be replayed: it should reload its state, then carry on from `lastEventId`.
 */
export const formatReset = (latest: number, reason: 'expired' | 'unknown'): string =>
  message(latest, 'reset', {
    reason:
      reason === 'expired'
        ? 'events after your Last-Event-ID are no longer kept: reload, then follow this stream'
        : 'your Last-Event-ID is not an id this server handed out: reload, then follow this stream',
    lastEventId: latest,
    at: new Date().toISOString(),
  });

/** The heartbeat: a comment, which EventSource ignores; it keeps proxies from closing an idle connection. */
export const formatHeartbeat = (): string => `: heartbeat ${new Date().toISOString()}\n\n`;

/**
 * `ingest.paused` / `ingest.resumed`: the disk filled (below MIN_FREE_BYTES, or a write hit ENOSPC) and background
 * jobs stopped claiming, or it has room again and they took up by themselves (platform/diskSpace.ts). Server-wide,
 * not in the log (a full disk may not take one more row): sent to the streams open now, and to each stream that
 * opens while paused. Without an `id:` line, so a client's Last-Event-ID stays the log's.
 */
export function formatDiskState(state: DiskState): string {
  const at = new Date().toISOString();
  const data = state.full
    ? { reason: state.reason, freeBytes: state.freeBytes, minFreeBytes: state.minFreeBytes, since: state.since, at }
    : { freeBytes: state.freeBytes, minFreeBytes: state.minFreeBytes, at };
  return `event: ${state.full ? 'ingest.paused' : 'ingest.resumed'}\ndata: ${JSON.stringify(data)}\n\n`;
}
