/** The viewer's top bar: back (Esc), the item's name, previous/next in `from` (←/→), the layer toggles and Details (i). */
import { followLink, navigate } from '../../lib/router';
import { viewerUrl, type Neighbours } from './neighbours';
import { LayerToggles, type LayerKey, type Layers } from './RegionLayer';
import type { Frame } from './types';
import { MoreLikeThis } from './MoreLikeThis';
import type { ComponentChildren } from 'preact';
import { useViewerTouch } from './useStageGestures';

export function ViewerBar(props: {
  name: string;
  back: string;
  from: string | null;
  neighbours: Neighbours;
  frame: Frame | undefined;
  layers: Layers;
  details: boolean;
  onToggle: (key: LayerKey) => void;
  onDetails: () => void;
  /** The item's collection (for "More like this"). */
  datasetId?: string;
  /** More controls at the end of the bar (the item's flags, ItemFlags.tsx). */
  flags?: ComponentChildren;
}) {
  useViewerTouch(props.neighbours, props.from, props.back); // swipe and pull down on the picture, as ←/→ and Esc
  return (
    <div class="viewer-bar">
      <a href={props.back} onClick={followLink} class="viewer-back" aria-keyshortcuts="Escape">
        ← Back
      </a>
      <h1 class="viewer-title">{props.name}</h1>
      <button
        type="button"
        aria-label="Previous item"
        aria-keyshortcuts="ArrowLeft"
        disabled={!props.neighbours.previous}
        onClick={() => props.neighbours.previous && navigate(viewerUrl(props.neighbours.previous, props.from))}
      >
        ←
      </button>
      <button
        type="button"
        aria-label="Next item"
        aria-keyshortcuts="ArrowRight"
        disabled={!props.neighbours.next}
        onClick={() => props.neighbours.next && navigate(viewerUrl(props.neighbours.next, props.from))}
      >
        →
      </button>
      {props.datasetId && <MoreLikeThis datasetId={props.datasetId} frame={props.frame} />}
      <LayerToggles frame={props.frame} layers={props.layers} onToggle={props.onToggle} />
      <button type="button" aria-pressed={props.details} aria-keyshortcuts="i" onClick={() => props.onDetails()}>
        Details
      </button>
      {props.flags}
    </div>
  );
}
