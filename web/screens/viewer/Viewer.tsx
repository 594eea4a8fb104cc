/**
 * Screens 4 and 5 (issue #15), /m/:mediaId: one item, large, with its regions in switchable layers, the
 * region list, similar regions, captions with their models, OCR text, corrections, tags, versions, file
 * facts and processing state; a video plays with its scene strip. Query: `from` (the browse or search URL
 * that ←/→ step through and Esc returns to), `frame` (a frame id), `t` (seconds into a video).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { location, navigate } from '../../lib/router';
import { RegionOverlay } from '../../components/RegionOverlay';
import { RegionPanel } from './RegionPanel';
import { findNeighbours, viewerUrl, type Neighbours } from './neighbours';
import { visibleRegions, type LayerKey, type Layers } from './RegionLayer';
import { RegionList } from './RegionList';
import { SceneStrip } from './SceneStrip';
import { seconds, type Frame, type MediaItem, type Region } from './types';
import { useMedia } from './useMedia';
import { useViewerKeys } from './useViewerKeys';
import { ViewerBar } from './ViewerBar';
import { DetailsPanel } from './DetailsPanel';
import { VideoStage } from './VideoStage';
import { LiveMotion } from './LiveMotion';
import { isPhoneLayout } from './useStageGestures';
import { ItemFlags } from './ItemFlags';
import './viewer.css';
import './phone.css';

/** How close (seconds) a paused video must be to an analysed frame for its regions to be drawn. */
const NEAR_FRAME_S = 0.6;

/** The analysed frame playing at `time`: the last one at or before it. */
function frameAt(frames: Frame[], time: number): Frame | undefined {
  let found = frames[0];
  for (const f of frames) if (seconds(f) <= time + 0.05) found = f;
  return found;
}

/** Neighbours in `from`, found in the background (none until known). */
function useNeighbours(from: string | null, mediaId: string): Neighbours {
  const [n, setN] = useState<Neighbours>({ previous: null, next: null });
  useEffect(() => {
    let live = true;
    setN({ previous: null, next: null });
    if (from)
      void findNeighbours(from, mediaId).then(
        (x) => live && setN(x),
        () => undefined,
      );
    return () => {
      live = false;
    };
  }, [from, mediaId]);
  return n;
}

export function Viewer(props: { params?: Record<string, string> }) {
  const mediaId = props.params?.mediaId ?? '';
  const query = location.value.query;
  const from = query.get('from');
  const { media, error, reload, setMedia } = useMedia(mediaId);
  const neighbours = useNeighbours(from, mediaId);
  if (error)
    return (
      <p class="error" role="alert">
        Could not open this item: {error}
      </p>
    );
  if (!media || media.id !== mediaId)
    return (
      <p class="loading" role="status">
        Opening…
      </p>
    );
  return (
    <ItemView
      key={media.id}
      media={media}
      from={from}
      frameParam={query.get('frame')}
      startAt={query.has('t') ? Number(query.get('t')) || 0 : null}
      neighbours={neighbours}
      reload={reload}
      setMedia={setMedia}
    />
  );
}

/** Seeking a video to a sampled frame, and stepping to the frame before or after the current one. */
function frameSeeking(
  frames: Frame[],
  frame: Frame | undefined,
  video: { current: HTMLVideoElement | null },
  setTime: (t: number) => void,
) {
  const seek = (f: Frame) => {
    if (video.current) video.current.currentTime = seconds(f);
    setTime(seconds(f));
  };
  const step = (delta: number) => {
    const at = frame ? frames.indexOf(frame) : 0;
    const next = frames[Math.min(frames.length - 1, Math.max(0, at + delta))];
    if (next) seek(next);
  };
  return { seek, step };
}

function ItemView(props: {
  media: MediaItem;
  from: string | null;
  frameParam: string | null;
  startAt: number | null;
  neighbours: Neighbours;
  reload: () => void;
  setMedia: (m: MediaItem) => void;
}) {
  const { media, from, neighbours } = props;
  const isVideo = media.type === 'video';
  const [layers, setLayers] = useState<Layers>({ object: true, face: true, text: true });
  const [activeId, setActiveId] = useState<string | null>(null);
  const [selected, setSelected] = useState<Region | null>(null);
  const [details, setDetails] = useState(() => !isPhoneLayout());
  const initial = media.frames.find((f) => f.id === props.frameParam);
  const [time, setTime] = useState(props.startAt ?? (initial ? seconds(initial) : 0));
  const [paused, setPaused] = useState(true);
  const video = useRef<HTMLVideoElement>(null);
  const frame = isVideo ? frameAt(media.frames, time) : (initial ?? media.frames[0]);
  const overlayFrame =
    !isVideo || (paused && frame && Math.abs(seconds(frame) - time) <= NEAR_FRAME_S) ? frame : undefined;
  const regions = visibleRegions(overlayFrame ?? frame, layers);
  const back = from ?? `/c/${encodeURIComponent(media.datasetId)}`;
  const here = location.value.path + (location.value.query.toString() ? `?${location.value.query}` : '');
  const toggle = (key: LayerKey) => setLayers((l) => ({ ...l, [key]: !l[key] }));
  const { seek, step } = frameSeeking(media.frames, frame, video, setTime);
  useViewerKeys({
    next: () => neighbours.next && navigate(viewerUrl(neighbours.next, from)),
    previous: () => neighbours.previous && navigate(viewerUrl(neighbours.previous, from)),
    close: () => (selected ? setSelected(null) : navigate(back)),
    objects: () => toggle('object'),
    faces: () => toggle('face'),
    text: () => toggle('text'),
    info: () => setDetails((d) => !d),
    copyText: () => document.querySelector<HTMLButtonElement>('.ocr-copy')?.click(),
    nextFrame: isVideo ? () => step(1) : undefined,
    previousFrame: isVideo ? () => step(-1) : undefined,
  });
  return (
    <div class={`viewer${details ? '' : ' details-hidden'}${selected ? ' with-similar' : ''}`}>
      <div class="viewer-main">
        <ViewerBar
          datasetId={media.datasetId}
          name={media.name}
          back={back}
          from={from}
          neighbours={neighbours}
          frame={frame}
          layers={layers}
          details={details}
          onToggle={toggle}
          onDetails={() => setDetails((d) => !d)}
          flags={<ItemFlags media={media} back={back} setMedia={props.setMedia} />}
        />
        {isVideo ? (
          <VideoStage
            media={media}
            video={video}
            startAt={props.startAt ?? (initial ? seconds(initial) : null)}
            overlay={overlayFrame ?? null}
            regions={regions}
            activeId={activeId}
            onTime={(t, p) => {
              setTime(t);
              setPaused(p);
            }}
            onHover={setActiveId}
            onSelect={setSelected}
          />
        ) : (
          frame && (
            <ImageStage
              media={media}
              frame={frame}
              regions={regions}
              activeId={activeId}
              onHover={setActiveId}
              onSelect={setSelected}
            />
          )
        )}
        {isVideo && <SceneStrip frames={media.frames} currentId={frame?.id ?? null} onSeek={seek} />}
        <h2 class="visually-hidden">Regions</h2>
        <RegionList
          regions={visibleRegions(frame, layers)}
          activeId={activeId}
          selectedId={selected?.id ?? null}
          onActive={setActiveId}
          onSelect={setSelected}
        />
      </div>
      {selected && (
        <RegionPanel
          region={selected}
          datasetId={media.datasetId}
          backTo={here}
          onClose={() => setSelected(null)}
          reload={props.reload}
        />
      )}
      <DetailsPanel
        media={media}
        frame={frame}
        from={from}
        hidden={!details}
        reload={props.reload}
        setMedia={props.setMedia}
      />
    </div>
  );
}

/** The large image (its 768 px preview when made, else the processed frame) with the regions over it. */
function ImageStage(props: {
  media: MediaItem;
  frame: Frame;
  regions: Region[];
  activeId: string | null;
  onHover: (id: string | null) => void;
  onSelect: (r: Region) => void;
}) {
  const { frame, media } = props;
  const ratio = (frame.width || 4) / (frame.height || 3);
  return (
    <div
      class="region-stage image-stage"
      style={{ aspectRatio: `${ratio}`, width: `min(100%, calc(68vh * ${ratio}))` }}
    >
      <img
        src={frame.previewUrl || media.previewUrl || frame.blob}
        alt={frame.captions[0]?.text || media.name}
        width={frame.width}
        height={frame.height}
      />
      <RegionOverlay
        width={frame.width}
        height={frame.height}
        regions={props.regions}
        activeId={props.activeId}
        labels
        onHover={props.onHover}
        onSelect={props.onSelect}
      />
      {media.livePhoto && <LiveMotion motionUrl={media.livePhoto.motionUrl} label={media.name} />}
    </div>
  );
}
