/**
 * An item's thumbnail for grids: the 256 px thumbnail when the server has made one, else the original for
 * images (servers before thumbnails), else a placeholder (a video with no thumbnail yet, a missing file).
 * Lazy and async-decoded; the alt text is the caption when there is one, else the name.
 */
import { useState } from 'preact/hooks';
import { formatClock } from './format';
import './media.css';

export interface ThumbFields {
  name: string;
  type: 'image' | 'video' | 'folder';
  blob: string;
  thumbnailUrl?: string | null;
  frames?: Array<{ captions: Array<{ text: string }> }>;
}

/** The URL a grid may load for an item (never a video original), or null for the placeholder. */
export function thumbSource(m: ThumbFields): string | null {
  if (m.thumbnailUrl) return m.thumbnailUrl;
  return m.type === 'image' && m.blob ? m.blob : null;
}

/** The item's first caption, else its name. */
export const altText = (m: ThumbFields): string => m.frames?.[0]?.captions?.[0]?.text || m.name;

export function MediaThumb({ item }: { item: ThumbFields }) {
  const src = thumbSource(item);
  const [failed, setFailed] = useState<string | null>(null);
  if (!src || failed === src)
    return (
      <span
        class={`media-thumb media-thumb-placeholder media-thumb-${item.type}`}
        role="img"
        aria-label={altText(item)}
      >
        {item.type === 'video' ? <VideoIcon /> : <ImageIcon />}
      </span>
    );
  return (
    <img
      class="media-thumb"
      src={src}
      alt={altText(item)}
      loading="lazy"
      decoding="async"
      draggable={false}
      onError={() => setFailed(src)}
    />
  );
}

/** A film-camera glyph (inline SVG: nothing is fetched). */
export function VideoIcon() {
  return (
    <svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M4 6h11a1 1 0 0 1 1 1v2.5l4-2.5v10l-4-2.5V17a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1z"
      />
    </svg>
  );
}

/** A video tile's length in its corner (read as "Video, 1:15"); nothing for other items or an unknown length. */
export function VideoDuration({ item }: { item: { type: string; duration: number | null } }) {
  if (item.type !== 'video' || item.duration === null) return null;
  return (
    <span class="tile-duration">
      <VideoIcon />
      <span class="visually-hidden">Video, </span>
      {formatClock(item.duration)}
    </span>
  );
}

function ImageIcon() {
  return (
    <svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M4 5h16a1 1 0 0 1 1 1v12a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1zm1 12h14l-4.5-6-3.5 4.5-2.5-3z"
      />
    </svg>
  );
}
