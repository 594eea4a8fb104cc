/**
 * A head start for opening an item: a result tile asks for the item when the pointer or focus reaches it,
 * so by the click the viewer's GET /api/media/:id is usually answered. Kept a few seconds, used once.
 */
import { api } from '../../lib/api';
import type { MediaItem } from './types';

const KEEP_MS = 5_000;
const pending = new Map<string, { at: number; answer: Promise<{ media: MediaItem }> }>();

/** Starts reading an item (again only after KEEP_MS). */
export function prefetchMedia(mediaId: string): void {
  const now = Date.now();
  for (const [id, p] of pending) if (now - p.at > KEEP_MS) pending.delete(id);
  if (pending.has(mediaId)) return;
  const answer = api<{ media: MediaItem }>('GET', `/api/media/${encodeURIComponent(mediaId)}`);
  answer.catch(() => pending.delete(mediaId));
  pending.set(mediaId, { at: now, answer });
}

/** The item: the prefetched answer when fresh (taken, so a later reload reads anew), else a new request. */
export function loadMedia(mediaId: string, signal: AbortSignal): Promise<{ media: MediaItem }> {
  const p = pending.get(mediaId);
  pending.delete(mediaId);
  if (p && Date.now() - p.at <= KEEP_MS) return p.answer;
  return api<{ media: MediaItem }>('GET', `/api/media/${encodeURIComponent(mediaId)}`, { signal });
}
