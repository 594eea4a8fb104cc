import type { PlaceFilter } from '../placeFilter.js';

/**
 * The place filters of a browse query (issue #26) over media m, as one probe of media_places (migration
 * 066); `p` numbers each parameter. Null when the query has none. As SQLite's placeFilter.ts.
 */
export function placeClause(filter: PlaceFilter | null | undefined, p: (value: unknown) => string): string | null {
  if (!filter) return null;
  const parts: string[] = [];
  if (filter.country !== undefined) parts.push(`x.country_code = ${p(filter.country)}`);
  if (filter.place !== undefined) parts.push(`x.city_key = ${p(filter.place)}`);
  // SQLite's NOCASE folds ASCII letters only: the same here, so both engines match the same models.
  if (filter.camera !== undefined)
    parts.push(`lower(x.camera_model COLLATE "C") = lower(${p(filter.camera)} COLLATE "C")`);
  if (filter.bbox) {
    const [west, south, east, north] = filter.bbox;
    parts.push(`x.latitude BETWEEN ${p(south)} AND ${p(north)}`);
    // West beyond east: the box crosses the antimeridian, two ranges of longitude.
    if (west <= east) parts.push(`x.longitude BETWEEN ${p(west)} AND ${p(east)}`);
    else parts.push(`(x.longitude >= ${p(west)} OR x.longitude <= ${p(east)})`);
  }
  if (filter.located) parts.push(`x.latitude IS NOT NULL`);
  if (parts.length === 0) return null;
  return `EXISTS (SELECT 1 FROM media_places x WHERE x.media_id = m.id AND ${parts.join(' AND ')})`;
}
