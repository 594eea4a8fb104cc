/**
 * The regions the layers show, as a list of buttons: hovering or focusing one highlights its shape on the
 * picture (and hovering a shape highlights its row); choosing one opens similar regions and corrections.
 */
import { regionName } from '../../components/RegionOverlay';
import type { Region } from './types';

export function RegionList(props: {
  regions: Region[];
  activeId: string | null;
  selectedId: string | null;
  onActive: (id: string | null) => void;
  onSelect: (region: Region) => void;
}) {
  if (props.regions.length === 0) return <p class="muted region-list-empty">No regions in the shown layers.</p>;
  return (
    <ul class="region-list" aria-label="Regions">
      {props.regions.map((r) => (
        <li key={r.id}>
          <button
            type="button"
            class={`region-item region-${r.type}${props.activeId === r.id ? ' active' : ''}`}
            aria-pressed={props.selectedId === r.id}
            data-region-id={r.id}
            onMouseEnter={() => props.onActive(r.id)}
            onMouseLeave={() => props.onActive(null)}
            onFocus={() => props.onActive(r.id)}
            onBlur={() => props.onActive(null)}
            onClick={() => props.onSelect(r)}
          >
            <span class="region-swatch" aria-hidden="true" />
            <span class="region-label">{r.label || 'unlabelled'}</span>
            <span class="muted region-meta">
              {r.type}
              {typeof r.confidence === 'number' ? ` · ${Math.round(r.confidence * 100)}%` : ''}
            </span>
            <span class="visually-hidden"> — show similar regions ({regionName(r)})</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
