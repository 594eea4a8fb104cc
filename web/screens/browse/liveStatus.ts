/**
 * Live updates of the grid from the server's event stream (web/lib/events.ts): `media.status` and
 * `media.thumbnail` change cached tiles in place; items created or deleted in the collection, and a `reset`,
 * make the listing fetch again (debounced: an upload of 500 files refetches a few times, not 500).
 */
import { subscribe, type MediaStatusEvent } from '../../lib/events';
import type { MediaItem } from './browseApi';

/** Created/deleted events within this long of each other cause one refetch. */
const REFETCH_DELAY_MS = 1500;

/** The cached item's new fields for a status event (a reason on a ready item is a model it waits for). */
export function patchFor(event: MediaStatusEvent): Partial<MediaItem> {
  const reason = event.reason ?? null;
  if (event.status === 'failed') return { processingStatus: 'failed', processingError: reason };
  if (event.status === 'pending' || event.status === 'processing')
    return { processingStatus: event.status, processingError: null };
  if (event.status === 'ready')
    return { processingStatus: 'ready', processingError: null, ...(reason ? { analysis: { analysis: reason } } : {}) };
  return {};
}

export interface LiveTargets {
  update: (mediaId: string, patch: Partial<MediaItem>) => void;
  /** Fetch the listing again (items came or went). */
  refetch: () => void;
}

/** Follows this collection's events until the returned function is called. */
export function followCollection(datasetId: string, targets: LiveTargets): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const later = (e: { datasetId: string }) => {
    if (e.datasetId !== datasetId || timer) return;
    timer = setTimeout(() => {
      timer = null;
      targets.refetch();
    }, REFETCH_DELAY_MS);
  };
  const offs = [
    subscribe('media.status', (e) => {
      if (e.datasetId === datasetId) targets.update(e.mediaId, patchFor(e));
    }),
    subscribe('media.thumbnail', (e) => {
      if (e.datasetId === datasetId && e.thumbnailUrl !== undefined)
        targets.update(e.mediaId, { thumbnailUrl: e.thumbnailUrl });
    }),
    subscribe('media.created', later),
    subscribe('media.deleted', later),
    subscribe('reset', () => targets.refetch()),
  ];
  return () => {
    if (timer) clearTimeout(timer);
    for (const off of offs) off();
  };
}
