/**
 * Follows acknowledged uploads until the server has processed them: live from the event stream
 * (`media.status` events, lib/events.ts), with polling of `GET /api/media/:id` as the fallback while the
 * stream is not open (and, slowly, as a safety net while it is). A `reset` event re-reads every item.
 */
import { effect } from '@preact/signals';
import { api } from '../../lib/api';
import { eventsConnection, subscribe } from '../../lib/events';
import { announcement, displayName, isProcessing, isSending, updateItem, uploads, type UploadItem } from './model';

interface Status {
  status: string;
  reason: string | null;
}

/** The newest status heard of each item, also for items whose upload answer has not arrived yet. */
const latest = new Map<string, Status>();

const POLL_MS = 1500;
/** While events flow, poll only every this many ticks (a missed event must not leave an item spinning). */
const SAFETY_TICKS = 7;

function apply(item: UploadItem, { status, reason }: Status): void {
  if (status === 'ready') {
    if (item.state !== 'ready') announcement.value = `${displayName(item)} is ready`;
    updateItem(item.key, { state: 'ready', reason: null, failedAt: null });
  } else if (status === 'failed') {
    const why = reason ?? 'processing failed';
    if (item.state !== 'failed') announcement.value = `${displayName(item)} failed: ${why}`;
    updateItem(item.key, { state: 'failed', failedAt: 'processing', reason: why });
  } else if (status === 'processing' || status === 'pending') {
    updateItem(item.key, { state: status, reason });
  }
}

/**
 * Records an item's status and shows it on its row. `fromAck`: the upload answer's status, older than
 * any event already heard for the item, so it does not overwrite one.
 */
export function noteStatus(mediaId: string, status: string, reason: string | null, fromAck = false): void {
  const known = latest.get(mediaId);
  const next = fromAck && known ? known : { status, reason };
  latest.set(mediaId, next);
  for (const item of uploads.value) if (item.mediaId === mediaId) apply(item, next);
}

/** "waiting for model florence-2-base" from a media answer's analysis stages, if any stage waits. */
function waitingReason(analysis: Record<string, string> | undefined): string | null {
  return Object.values(analysis ?? {}).find((s) => s.startsWith('waiting for model')) ?? null;
}

interface MediaAnswer {
  media: { processingStatus: string; processingError?: string | null; analysis?: Record<string, string> };
}

async function pollOnce(): Promise<void> {
  const open = uploads.value.filter(isProcessing).slice(0, 20);
  await Promise.all(
    open.map(async (item) => {
      try {
        const { media } = await api<MediaAnswer>('GET', `/api/media/${encodeURIComponent(item.mediaId!)}`);
        const reason =
          media.processingStatus === 'failed' ? (media.processingError ?? null) : waitingReason(media.analysis);
        noteStatus(item.mediaId!, media.processingStatus, reason);
      } catch {
        // Deleted meanwhile or the server is away: the next tick asks again.
      }
    }),
  );
}

let started = false;

/** Starts following (once per page): subscribes to the stream while any item is sent or processed, and polls. */
export function startTracking(): void {
  if (started) return;
  started = true;
  let unsubscribe: (() => void) | null = null;
  effect(() => {
    // Listening from the first byte sent: an item can turn ready before its upload answer reaches the page,
    // and `latest` keeps what is heard until the answer names the item.
    const busy = uploads.value.some((i) => isSending(i) || isProcessing(i));
    if (busy && !unsubscribe) {
      const offStatus = subscribe('media.status', (e) => noteStatus(e.mediaId, e.status, e.reason ?? null));
      const offReset = subscribe('reset', () => void pollOnce());
      unsubscribe = () => (offStatus(), offReset());
    } else if (!busy && unsubscribe) {
      unsubscribe();
      unsubscribe = null;
    }
  });
  let tick = 0;
  setInterval(() => {
    tick++;
    if (!uploads.value.some(isProcessing)) return;
    if (eventsConnection.value !== 'open' || tick % SAFETY_TICKS === 0) void pollOnce();
  }, POLL_MS);
}
