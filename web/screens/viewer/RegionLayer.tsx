/**
 * The viewer's switchable layers: objects, faces and text (keys 1/2/3). Which regions of a frame each
 * layer holds, and the toggle buttons that show or hide them.
 */
import type { Frame, Region } from './types';

export type LayerKey = 'object' | 'face' | 'text';
export type Layers = Record<LayerKey, boolean>;

export const LAYERS: Array<{ key: LayerKey; name: string; shortcut: string }> = [
  { key: 'object', name: 'Objects', shortcut: '1' },
  { key: 'face', name: 'Faces', shortcut: '2' },
  { key: 'text', name: 'Text', shortcut: '3' },
];

/** The layer a region belongs to; null for the whole-frame region (not drawn). */
export function layerOf(r: Region): LayerKey | null {
  if (r.type === 'frame') return null;
  return r.type === 'face' || r.type === 'text' ? r.type : 'object';
}

/** The regions of a frame that the switched-on layers show. */
export function visibleRegions(frame: Frame | undefined, layers: Layers): Region[] {
  return (frame?.objects ?? []).filter((r) => {
    const layer = layerOf(r);
    return layer !== null && layers[layer];
  });
}

export function LayerToggles(props: { frame: Frame | undefined; layers: Layers; onToggle: (key: LayerKey) => void }) {
  const count = (key: LayerKey) => (props.frame?.objects ?? []).filter((r) => layerOf(r) === key).length;
  return (
    <div class="layer-toggles" role="group" aria-label="Layers">
      {LAYERS.map((l) => (
        <button
          type="button"
          key={l.key}
          class="layer-toggle"
          aria-pressed={props.layers[l.key]}
          aria-keyshortcuts={l.shortcut}
          onClick={() => props.onToggle(l.key)}
        >
          {l.name} <span class="muted">{count(l.key)}</span>
        </button>
      ))}
    </div>
  );
}
