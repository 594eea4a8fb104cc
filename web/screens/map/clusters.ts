/**
 * Clustered markers with supercluster: the points are indexed once (about 0.2 s for 50,000), then each frame
 * asks for the clusters inside the view at its whole zoom, which split as the zoom grows.
 */
import Supercluster from 'supercluster';
import type { MapPoints } from './mapApi';
import { MAX_ZOOM, toScreen, viewBounds, worldX, worldY, type View } from './projection';

export type PointIndex = Supercluster<{ id: string }, Record<string, never>>;

/** A marker on the canvas: a cluster (clusterId) or one item (itemId), at canvas pixel (x, y). */
export interface Marker {
  key: string;
  x: number;
  y: number;
  longitude: number;
  latitude: number;
  count: number;
  clusterId?: number;
  itemId?: string;
  /** A cluster that never splits (its items share one spot): clicking opens its items. */
  opens?: boolean;
}

export function buildIndex(points: MapPoints): PointIndex {
  const index: PointIndex = new Supercluster({ radius: 60, maxZoom: MAX_ZOOM, minZoom: 0 });
  index.load(
    points.ids.map((id, i) => ({
      type: 'Feature' as const,
      properties: { id },
      geometry: { type: 'Point' as const, coordinates: [points.longitudes[i], points.latitudes[i]] },
    })),
  );
  return index;
}

/** The markers a view shows. */
export function markersIn(index: PointIndex, view: View): Marker[] {
  const markers: Marker[] = [];
  for (const f of index.getClusters(viewBounds(view), Math.floor(view.zoom))) {
    const [lon, lat] = f.geometry.coordinates;
    const [x, y] = toScreen(view, worldX(lon), worldY(lat));
    const p = f.properties as { cluster?: boolean; cluster_id?: number; point_count?: number; id?: string };
    const at = { x, y, longitude: lon, latitude: lat };
    if (p.cluster) {
      const opens = index.getClusterExpansionZoom(p.cluster_id!) > MAX_ZOOM;
      markers.push({ key: `c${p.cluster_id}`, ...at, count: p.point_count ?? 0, clusterId: p.cluster_id, opens });
    } else markers.push({ key: `p${p.id}`, ...at, count: 1, itemId: p.id });
  }
  return markers;
}

/** What clicking a cluster does: zoom to where it splits, or (when it never splits) the box around its items. */
export function clusterAction(
  index: PointIndex,
  clusterId: number,
): { zoom: number } | { bbox: [number, number, number, number] } {
  const zoom = index.getClusterExpansionZoom(clusterId);
  if (zoom <= MAX_ZOOM) return { zoom };
  let [w, s, e, n] = [180, 90, -180, -90];
  for (const leaf of index.getLeaves(clusterId, Infinity)) {
    const [lon, lat] = leaf.geometry.coordinates;
    w = Math.min(w, lon);
    e = Math.max(e, lon);
    s = Math.min(s, lat);
    n = Math.max(n, lat);
  }
  // A margin of about 10 m keeps points on the edge inside after rounding.
  const m = 1e-4;
  return { bbox: [Math.max(-180, w - m), Math.max(-90, s - m), Math.min(180, e + m), Math.min(90, n + m)] };
}

/** `west,south,east,north` with 5 decimals (about 1 m). */
export const bboxParam = (b: [number, number, number, number]): string => b.map((v) => v.toFixed(5)).join(',');
