import type { PlaceFilter } from '../placeFilter.js';

/**
 * The place filters of a browse query (issue #26) as one probe of media_places (migration 033) per candidate
 * row of media_scope s: `item` is the SQL of the row's text id. Null when the query has none.
 */
export function placeClause(
  filter: PlaceFilter | null | undefined,
  item: string,
): { sql: string; params: unknown[] } | null {
  if (!filter) return null;
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filter.country !== undefined) {
    parts.push(`p.country_code = ?`);
    params.push(filter.country);
  }
  if (filter.place !== undefined) {
    parts.push(`p.city_key = ?`);
    params.push(filter.place);
  }
  if (filter.camera !== undefined) {
    parts.push(`p.camera_model = ? COLLATE NOCASE`);
    params.push(filter.camera);
  }
  if (filter.bbox) {
    const [west, south, east, north] = filter.bbox;
    parts.push(`p.latitude BETWEEN ? AND ?`);
    params.push(south, north);
    // West beyond east: the box crosses the antimeridian, two ranges of longitude.
    if (west <= east) parts.push(`p.longitude BETWEEN ? AND ?`);
    else parts.push(`(p.longitude >= ? OR p.longitude <= ?)`);
    params.push(west, east);
  }
  if (filter.located) parts.push(`p.latitude IS NOT NULL`);
  if (parts.length === 0) return null;
  return { sql: `EXISTS (SELECT 1 FROM media_places p WHERE p.media_id = ${item} AND ${parts.join(' AND ')})`, params };
}

/** Whether a query has place filters (the browse bitmaps then do not answer it). */
export const placeFiltered = (filter: PlaceFilter | null | undefined): boolean => placeClause(filter, '') !== null;
