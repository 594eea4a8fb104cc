/**
 * The world drawn with no tile server: Natural Earth land and country borders from the `world-atlas` package
 * (public domain data, TopoJSON), bundled into chunks of our own build and fetched from our origin only when
 * the map opens. The coarse 1:110m atlas draws the world; the 1:50m one is loaded on the first zoom past
 * DETAIL_ZOOM. Each becomes Path2D objects in world coordinates ([0, 1]², projection.ts), projected once:
 * a frame only sets a transform and fills. A ring that crosses the antimeridian (eastern Russia, Fiji,
 * Antarctica) is unwrapped so it stays continuous past the world's edge, kept apart, and drawn again one world
 * to the left and right; the frame clips to the world.
 */
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { MultiLineString, MultiPolygon, Polygon, Position } from 'geojson';
import { worldY } from './projection';

/** From this zoom on, the detailed atlas is drawn (once it has loaded). */
export const DETAIL_ZOOM = 3;

export interface Atlas {
  land: Path2D;
  borders: Path2D;
  /** The rings and lines that cross the antimeridian, unwrapped (x beyond [0, 1]). */
  landAcross: Path2D;
  bordersAcross: Path2D;
}

type WorldTopology = Topology<{ land?: GeometryCollection; countries: GeometryCollection }>;

/** Adds a ring or line to `path`, or to `across` when it crosses the antimeridian (then unwrapped). */
function addRing(path: Path2D, across: Path2D, ring: Position[], close: boolean): void {
  let shift = 0;
  let crossed = false;
  const xs = ring.map(([lon], i) => {
    if (i > 0 && Math.abs(lon - ring[i - 1][0]) > 180) {
      shift += lon < ring[i - 1][0] ? 360 : -360;
      crossed = true;
    }
    return (lon + shift + 180) / 360;
  });
  const target = crossed ? across : path;
  ring.forEach(([, lat], i) => (i === 0 ? target.moveTo(xs[i], worldY(lat)) : target.lineTo(xs[i], worldY(lat))));
  if (close) target.closePath();
}

/** Land as one path (even-odd fill keeps the lakes open) and the borders between countries as another. */
export function buildAtlas(land: WorldTopology, countries: WorldTopology): Atlas {
  const landPath = new Path2D();
  const landAcross = new Path2D();
  const shapes = feature(land, land.objects.land as GeometryCollection);
  for (const f of shapes.features) {
    const g = f.geometry as Polygon | MultiPolygon;
    const polygons = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
    for (const polygon of polygons) for (const ring of polygon) addRing(landPath, landAcross, ring, true);
  }
  const borders = new Path2D();
  const bordersAcross = new Path2D();
  const lines = mesh(countries, countries.objects.countries, (a, b) => a !== b) as MultiLineString;
  for (const line of lines.coordinates) addRing(borders, bordersAcross, line, false);
  return { land: landPath, borders, landAcross, bordersAcross };
}

let coarse: Promise<Atlas> | null = null;
let detailed: Promise<Atlas> | null = null;

/** The 1:110m world (about 60 kB gzip). */
export function coarseAtlas(): Promise<Atlas> {
  coarse ??= Promise.all([import('world-atlas/land-110m.json'), import('world-atlas/countries-110m.json')]).then(
    ([l, c]) => buildAtlas(l.default as unknown as WorldTopology, c.default as unknown as WorldTopology),
  );
  coarse.catch(() => (coarse = null)); // a later map may try again
  return coarse;
}

/** The 1:50m world (about 400 kB gzip), for closer views. */
export function detailedAtlas(): Promise<Atlas> {
  detailed ??= Promise.all([import('world-atlas/land-50m.json'), import('world-atlas/countries-50m.json')]).then(
    ([l, c]) => buildAtlas(l.default as unknown as WorldTopology, c.default as unknown as WorldTopology),
  );
  detailed.catch(() => (detailed = null));
  return detailed;
}
