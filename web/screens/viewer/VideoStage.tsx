/**
 * Screen 5's player: the native <video controls> over the file's URL, opened at `t` seconds, with the
 * paused frame's regions drawn over it (the same overlay as images). Browsers play H.264 MP4 and VP9/AV1
 * WebM, not HEVC, MJPEG AVI or H.263 3GP: for those the server makes an H.264 web copy after the analysis
 * (`playbackUrl`); until it is there, or where this browser cannot play what it gets, the stage says so
 * and offers the file for download.
 */
import { useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import { RegionOverlay } from '../../components/RegionOverlay';
import type { Frame, MediaItem, Region } from './types';

/** False when the browser says it cannot play this file type ('' from canPlayType). */
function playable(mimeType: string | undefined): boolean {
  if (!mimeType) return true;
  return document.createElement('video').canPlayType(mimeType) !== '';
}

export function VideoStage(props: {
  media: MediaItem;
  video: RefObject<HTMLVideoElement | null>;
  startAt: number | null;
  /** The analysed frame the video is paused on (its regions are drawn), or null. */
  overlay: Frame | null;
  regions: Region[];
  activeId: string | null;
  onTime: (seconds: number, paused: boolean) => void;
  onHover: (id: string | null) => void;
  onSelect: (r: Region) => void;
}) {
  const { media } = props;
  // The server's answer when it gave one: the original when browsers play it, else its web copy (or null: pending).
  const src = media.playbackUrl === undefined ? media.blob : media.playbackUrl;
  const copied = Boolean(src && src !== media.blob);
  // The source this browser refused, if any: a new source (the copy arrived) is tried afresh.
  const [refused, setRefused] = useState<string | null>(null);
  const failed = !src || refused === src || (!copied && !playable(media.mimeType));
  const w = media.width || 16;
  const h = media.height || 9;
  if (failed)
    return (
      <div class="video-unplayable" role="alert">
        <p>
          {src
            ? `This browser cannot play this video${media.mimeType ? ` (${media.mimeType})` : ''}.`
            : 'A copy this browser can play is being made.'}{' '}
          Its analysed frames are below.
        </p>
        <a href={media.blob} download={media.name}>
          Download {media.name}
        </a>
      </div>
    );
  const report = (v: HTMLVideoElement) => props.onTime(v.currentTime, v.paused);
  return (
    <div
      class="region-stage video-stage"
      style={{ aspectRatio: `${w} / ${h}`, width: `min(100%, calc(62vh * ${w / h}))` }}
    >
      <video
        ref={props.video}
        src={src ?? undefined}
        // The first frame's preview until playback starts, rather than a black box.
        poster={media.previewUrl || undefined}
        controls
        preload="metadata"
        aria-label={`Video: ${media.name}`}
        onLoadedMetadata={(e) => {
          if (props.startAt) e.currentTarget.currentTime = props.startAt;
          report(e.currentTarget);
        }}
        onTimeUpdate={(e) => report(e.currentTarget)}
        onSeeked={(e) => report(e.currentTarget)}
        onPause={(e) => report(e.currentTarget)}
        onPlay={(e) => report(e.currentTarget)}
        onError={(e) => e.currentTarget.error?.code === MediaError.MEDIA_ERR_SRC_NOT_SUPPORTED && setRefused(src)}
      />
      {props.overlay && (
        <RegionOverlay
          width={props.overlay.width}
          height={props.overlay.height}
          regions={props.regions}
          activeId={props.activeId}
          labels
          onHover={props.onHover}
          onSelect={props.onSelect}
        />
      )}
    </div>
  );
}
