/**
 * Web Mercator for the map screen, with no tiles: a longitude/latitude becomes a world position in [0, 1]²
 * (x east, y south), and a view (centre + zoom) maps world positions to canvas pixels. At zoom z the world is
 * 256·2^z pixels wide, as on every slippy map, so supercluster's integer zooms line up with ours.
 */

/** Latitudes beyond this are off the square Mercator world. */
export const MAX_LATITUDE = 85.05112878;
export const TILE = 256;
/** The deepest zoom: supercluster's maxZoom too, so at this zoom every cluster is one place. */
export const MAX_ZOOM = 16;

export interface View {
  /** The world position at the centre of the canvas. */
  cx: number;
  cy: number;
  zoom: number;
  /** Canvas size in CSS pixels. */
  width: number;
  height: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

export const worldX = (longitude: number): number => (clamp(longitude, -180, 180) + 180) / 360;

export function worldY(latitude: number): number {
  const s = Math.sin((clamp(latitude, -MAX_LATITUDE, MAX_LATITUDE) * Math.PI) / 180);
  return 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI);
}

export const longitudeOf = (x: number): number => x * 360 - 180;
export const latitudeOf = (y: number): number => (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI;

/** The world's width in pixels at a zoom. */
export const worldSize = (zoom: number): number => TILE * 2 ** zoom;

/** The zoom at which the whole world fits the canvas (never below 0). */
export const minZoom = (width: number, height: number): number =>
  Math.max(0, Math.log2(Math.min(width, height * 1.6) / TILE));

/** Keeps the zoom in range and the centre over the world. */
export function clampView(v: View): View {
  const zoom = clamp(v.zoom, minZoom(v.width, v.height), MAX_ZOOM);
  const size = worldSize(zoom);
  const halfW = v.width / 2 / size;
  const halfH = v.height / 2 / size;
  const cx = halfW >= 0.5 ? 0.5 : clamp(v.cx, halfW, 1 - halfW);
  const cy = halfH >= 0.5 ? 0.5 : clamp(v.cy, halfH, 1 - halfH);
  return { ...v, cx, cy, zoom };
}

/** Canvas pixel of a world position. */
export function toScreen(v: View, x: number, y: number): [number, number] {
  const size = worldSize(v.zoom);
  return [(x - v.cx) * size + v.width / 2, (y - v.cy) * size + v.height / 2];
}

/** World position under a canvas pixel. */
export function toWorld(v: View, sx: number, sy: number): [number, number] {
  const size = worldSize(v.zoom);
  return [v.cx + (sx - v.width / 2) / size, v.cy + (sy - v.height / 2) / size];
}

/** Moves the view by a drag of (dx, dy) pixels. */
export const panBy = (v: View, dx: number, dy: number): View => {
  const size = worldSize(v.zoom);
  return clampView({ ...v, cx: v.cx - dx / size, cy: v.cy - dy / size });
};

/** Zooms by `delta` levels keeping the world point under canvas pixel (sx, sy) where it is. */
export function zoomAt(v: View, delta: number, sx = v.width / 2, sy = v.height / 2): View {
  const [wx, wy] = toWorld(v, sx, sy);
  const zoom = clamp(v.zoom + delta, minZoom(v.width, v.height), MAX_ZOOM);
  const size = worldSize(zoom);
  return clampView({ ...v, zoom, cx: wx - (sx - v.width / 2) / size, cy: wy - (sy - v.height / 2) / size });
}

const KEY_PAN = 100;

/** A key's change to the view, or null when the map does not use the key. */
export function keyToView(view: View, key: string): View | null {
  switch (key) {
    case 'ArrowLeft':
      return panBy(view, KEY_PAN, 0);
    case 'ArrowRight':
      return panBy(view, -KEY_PAN, 0);
    case 'ArrowUp':
      return panBy(view, 0, KEY_PAN);
    case 'ArrowDown':
      return panBy(view, 0, -KEY_PAN);
    case '+':
    case '=':
      return zoomAt(view, 1);
    case '-':
    case '_':
      return zoomAt(view, -1);
    default:
      return null;
  }
}

/** The visible area as [west, south, east, north] degrees (supercluster's and the API's bbox order). */
export function viewBounds(v: View): [number, number, number, number] {
  const [x0, y0] = toWorld(v, 0, 0);
  const [x1, y1] = toWorld(v, v.width, v.height);
  return [
    longitudeOf(clamp(x0, 0, 1)),
    latitudeOf(clamp(y1, 0, 1)),
    longitudeOf(clamp(x1, 0, 1)),
    latitudeOf(clamp(y0, 0, 1)),
  ];
}

/** The view that shows every point (with a margin), or the whole world when there are none. */
export function fitPoints(latitudes: number[], longitudes: number[], width: number, height: number): View {
  const world = clampView({ cx: 0.5, cy: 0.5, zoom: 0, width, height });
  if (latitudes.length === 0) return world;
  let x0 = 1;
  let x1 = 0;
  let y0 = 1;
  let y1 = 0;
  for (let i = 0; i < latitudes.length; i++) {
    const x = worldX(longitudes[i]);
    const y = worldY(latitudes[i]);
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  const span = Math.max((x1 - x0) / (width * 0.8), (y1 - y0) / (height * 0.8), 1e-9);
  const zoom = Math.min(Math.log2(1 / span / TILE), 10);
  return clampView({ cx: (x0 + x1) / 2, cy: (y0 + y1) / 2, zoom, width, height });
}
