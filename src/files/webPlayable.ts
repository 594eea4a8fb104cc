/**
 * Which stored videos a browser plays as they are, and the web-playable copy of those it does not
 * (made by the ingest's `web-video` job, features/ingest/webVideo.ts; recorded as `exif.webVideo`).
 */
import type { MediaRecord } from '../storage/types.js';

/** Video codecs every current browser plays, in the containers below. */
const PLAYABLE_CODECS = new Set(['h264', 'vp8', 'vp9', 'av1']);
/** Containers browsers play (QuickTime holding H.264 plays as MP4 does). */
const PLAYABLE_MIME = new Set(['video/mp4', 'video/webm', 'video/quicktime']);

/** The web-playable copy of a video, as recorded in `exif.webVideo`. */
export interface WebVideo {
  key: string;
  width: number;
  height: number;
  codec: 'h264';
  sizeBytes: number;
}

/** Whether an item is a video a browser cannot play as stored (from its probe's codec and its MIME type). */
export function needsWebVideo(media: Pick<MediaRecord, 'type' | 'mimeType' | 'exif'>): boolean {
  if (media.type !== 'video') return false;
  const codec = typeof media.exif?.codec === 'string' ? media.exif.codec : '';
  return !PLAYABLE_CODECS.has(codec) || !PLAYABLE_MIME.has(media.mimeType ?? '');
}

/** The recorded copy of an item, when there is one. */
export function webVideoOf(media: Pick<MediaRecord, 'exif'>): WebVideo | null {
  const w = media.exif?.webVideo as WebVideo | undefined;
  return w && typeof w.key === 'string' ? w : null;
}
