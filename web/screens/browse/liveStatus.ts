/**
 * Live processing badges: `media.status` events from the server's event stream (GET /api/events, branch
 * h15thumbs) applied to the grid's cached items.
 *
 * ADAPTER: the events client web/lib/events.ts (`subscribe(type, handler) → unsubscribe`) is written on
 * another branch. Until it is merged here, `subscribe` below is a stand-in that never calls back; once it is,
 * replace the stand-in with `import { subscribe } from '../../lib/events';` — nothing else changes.
 */
import type { MediaItem } from './browseApi';

/** The event's body as h15thumbs defines it. */
export interface MediaStatusEvent {
  datasetId: string;
  mediaId: string;
  status: string;
  reason?: string;
  path: string;
  at: string;
}

type Subscribe = (type: 'media.status', handler: (event: MediaStatusEvent) => void) => () => void;

// TODO(h15thumbs + upload/events): swap for lib/events.ts's subscribe.
const subscribe: Subscribe = () => () => undefined;

/** The cached item's new fields for an event (a model wait shows as a ready item with a waiting stage). */
export function patchFor(event: MediaStatusEvent): Partial<MediaItem> {
  if (
    event.status === 'pending' ||
    event.status === 'processing' ||
    event.status === 'ready' ||
    event.status === 'failed'
  )
    return {
      processingStatus: event.status,
      processingError: event.status === 'failed' ? (event.reason ?? null) : null,
    };
  if (event.status.startsWith('waiting'))
    return {
      processingStatus: 'ready',
      processingError: null,
      analysis: { analysis: event.reason ?? 'waiting for model' },
    };
  return {};
}

/** Calls `apply` for each status event of this collection; returns the unsubscribe function. */
export function onMediaStatus(
  datasetId: string,
  apply: (mediaId: string, patch: Partial<MediaItem>) => void,
): () => void {
  return subscribe('media.status', (event) => {
    if (event.datasetId === datasetId) apply(event.mediaId, patchFor(event));
  });
}
