/**
 * The live-events client: one shared EventSource to `GET /api/events` (Server-Sent Events, cookie
 * authenticated) for the whole page. Screens subscribe by event type; the connection opens with the first
 * subscriber and closes with the last. The browser resends `Last-Event-ID` when it reconnects by itself;
 * when the server refuses the stream (an error status, the route missing), EventSource gives up, so this
 * client reopens it with a growing delay. A `reset` event means "your view may be stale: reload what you
 * show" (the server no longer holds the events after your last id).
 */
import { signal } from '@preact/signals';

/** An item's processing status changed. */
export interface MediaStatusEvent {
  datasetId: string;
  mediaId: string;
  status: 'pending' | 'processing' | 'ready' | 'failed' | string;
  /** Why it failed, or what it waits for (e.g. a model being downloaded). */
  reason?: string | null;
  path?: string;
  at?: string;
}

/** An item's thumbnail or preview was made. */
export interface MediaThumbnailEvent {
  datasetId: string;
  mediaId: string;
  thumbnailUrl?: string | null;
  previewUrl?: string | null;
}

/** Progress of a background job of the organization. */
export interface JobProgressEvent {
  jobId?: string;
  kind?: string;
  done?: number;
  total?: number;
  [key: string]: unknown;
}

/** The disk state of `ingest.paused` / `ingest.resumed` (bytes free when last looked at; null: unknown). */
export interface DiskPauseEvent {
  reason?: string | null;
  freeBytes: number | null;
  minFreeBytes: number;
  since?: string | null;
}

/** Every event type the server sends, with its data. Unknown types still arrive as `Record<string, unknown>`. */
export interface EventMap {
  'media.created': { datasetId: string; mediaId: string; path?: string; name?: string };
  'media.status': MediaStatusEvent;
  'media.thumbnail': MediaThumbnailEvent;
  'media.deleted': { datasetId: string; mediaId: string };
  'job.progress': JobProgressEvent;
  /** The server's disk is full: background work paused until space frees (sent again to each stream opened then). */
  'ingest.paused': DiskPauseEvent;
  /** The disk has room again: background work took up by itself. */
  'ingest.resumed': DiskPauseEvent;
  /** Resynchronise: reload whatever you show from the API. */
  reset: Record<string, unknown>;
}

export type EventType = keyof EventMap;
type Handler<T extends EventType> = (data: EventMap[T]) => void;

/** `connecting` before the first open and while reopening; `open` while events flow; `closed` with no subscriber. */
export const eventsConnection = signal<'closed' | 'connecting' | 'open'>('closed');

const handlers = new Map<EventType, Set<Handler<EventType>>>();
const listening = new Set<string>();
let source: EventSource | null = null;
let retryTimer: ReturnType<typeof setTimeout> | null = null;
let retryDelayMs = 1000;

function dispatch(type: EventType, raw: MessageEvent<string>): void {
  let data: unknown = {};
  try {
    data = raw.data ? JSON.parse(raw.data) : {};
  } catch {
    return; // Not JSON: nothing a subscriber could read.
  }
  for (const handler of handlers.get(type) ?? []) handler(data as EventMap[EventType]);
}

/** EventSource delivers named events only to listeners of that name: add one per subscribed type. */
function listen(type: EventType): void {
  if (!source || listening.has(type)) return;
  listening.add(type);
  source.addEventListener(type, (e) => dispatch(type, e as MessageEvent<string>));
}

function open(): void {
  if (source || typeof EventSource === 'undefined') return;
  eventsConnection.value = 'connecting';
  source = new EventSource('/api/events', { withCredentials: true });
  listening.clear();
  for (const type of handlers.keys()) listen(type);
  source.onopen = () => {
    retryDelayMs = 1000;
    eventsConnection.value = 'open';
  };
  source.onerror = () => {
    if (!source) return;
    if (source.readyState === EventSource.CONNECTING) {
      eventsConnection.value = 'connecting'; // The browser retries on its own (with Last-Event-ID).
      return;
    }
    // CLOSED: the server refused (an error status); the browser will not retry, so we do, backing off.
    close();
    eventsConnection.value = 'connecting';
    retryTimer = setTimeout(open, retryDelayMs);
    retryDelayMs = Math.min(retryDelayMs * 2, 30_000);
  };
}

function close(): void {
  source?.close();
  source = null;
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = null;
}

/**
 * Calls `handler` with the data of every `type` event until the returned function is called. The shared
 * connection opens with the first subscription and closes after the last one ends.
 */
export function subscribe<T extends EventType>(type: T, handler: Handler<T>): () => void {
  let set = handlers.get(type);
  if (!set) handlers.set(type, (set = new Set()));
  set.add(handler as Handler<EventType>);
  if (source) listen(type);
  else open();
  return () => {
    set.delete(handler as Handler<EventType>);
    if ([...handlers.values()].every((s) => s.size === 0)) {
      close();
      eventsConnection.value = 'closed';
    }
  };
}
