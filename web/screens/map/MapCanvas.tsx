/**
 * The interactive map (loaded as its own chunk by MapScreen): the world on a canvas, clustered markers as
 * buttons above it (focusable, named by their counts), zoom buttons, and a link to the items in view
 * (useMapView.ts keeps the view and draws it).
 */
import { useMemo, useRef } from 'preact/hooks';
import { navigate } from '../../lib/router';
import { bboxParam, buildIndex, clusterAction, type Marker } from './clusters';
import { browseHref, type MapPoints } from './mapApi';
import { clampView, fitPoints, MAX_ZOOM, toWorld, viewBounds, zoomAt } from './projection';
import { useMapView } from './useMapView';

export interface MapCanvasProps {
  datasetId: string;
  points: MapPoints;
  /** The browse filters the map shows (kept on the links it makes). */
  filters: Record<string, string>;
  /** Open centred here, close up: [latitude, longitude]. */
  focus?: [number, number] | null;
}

export function MapCanvas({ datasetId, points, filters, focus = null }: MapCanvasProps) {
  const stage = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const index = useMemo(() => buildIndex(points), [points]);
  const { control, markers, zoom, view } = useMapView(stage, canvas, index, points, focus);

  const open = (m: Marker) => {
    const v = control.get();
    if (m.itemId) return navigate(`/m/${encodeURIComponent(m.itemId)}`);
    const action = clusterAction(index, m.clusterId!);
    if ('bbox' in action) return navigate(browseHref(datasetId, { ...filters, bbox: bboxParam(action.bbox) }));
    const [cx, cy] = toWorld(v, m.x, m.y);
    control.set(clampView({ ...v, zoom: Math.max(action.zoom, v.zoom + 0.5), cx, cy }));
  };
  const inView = () => {
    const v = view();
    return browseHref(datasetId, v ? { ...filters, bbox: bboxParam(viewBounds(v)) } : filters);
  };

  return (
    <div class="map-wrap">
      <div
        ref={stage}
        class="map-stage"
        tabIndex={0}
        role="application"
        aria-roledescription="map"
        aria-label="Map of the collection's geotagged items. Drag or use the arrow keys to pan, + and − to zoom."
      >
        <canvas ref={canvas} class="map-canvas" aria-hidden="true" />
        {markers.map((m) => (
          <button
            key={m.key}
            type="button"
            class={markerClass(m)}
            style={{ left: `${m.x}px`, top: `${m.y}px` }}
            data-count={m.count}
            data-position={`${m.latitude.toFixed(5)},${m.longitude.toFixed(5)}`}
            aria-label={markerLabel(m)}
            onClick={() => open(m)}
          >
            {m.count > 1 ? compact(m.count) : ''}
          </button>
        ))}
      </div>
      <div class="map-controls" role="group" aria-label="Zoom">
        <button
          type="button"
          aria-label="Zoom in"
          disabled={zoom >= MAX_ZOOM}
          onClick={() => control.set(zoomAt(control.get(), 1))}
        >
          +
        </button>
        <button type="button" aria-label="Zoom out" onClick={() => control.set(zoomAt(control.get(), -1))}>
          −
        </button>
        <button
          type="button"
          aria-label="Show every item"
          onClick={() => {
            const v = control.get();
            control.set(fitPoints(points.latitudes, points.longitudes, v.width, v.height));
          }}
        >
          ⤢
        </button>
      </div>
      <a
        class="button-link map-in-view"
        href={inView()}
        onClick={(e) => {
          e.preventDefault();
          navigate(inView());
        }}
      >
        List the items in view
      </a>
    </div>
  );
}

const compact = (n: number) =>
  n < 1000 ? String(n) : n < 100_000 ? `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k` : `${Math.round(n / 1000)}k`;

function markerLabel(m: Marker): string {
  if (m.itemId) return 'One item: open it';
  return `${m.count.toLocaleString()} items${m.opens ? ' in one spot: open them' : ': zoom in'}`;
}

function markerClass(m: Marker): string {
  if (m.itemId) return 'map-marker map-point';
  if (m.opens) return 'map-marker opens';
  return `map-marker ${m.count < 10 ? 'small' : m.count < 100 ? 'medium' : m.count < 1000 ? 'large' : 'huge'}`;
}
