/**
 * The place filters of browse, search, the bulk selection and the map (issue #26), as query parameters:
 * `country` (ISO 3166-1 alpha-2, any case), `place` (a city name, any case, exact), `camera` (camera.model,
 * any ASCII case, exact) and `bbox=west,south,east,north` (degrees; west > east crosses the antimeridian).
 */
import { z } from 'zod';
import { invalid } from '../../platform/errors.js';
import type { PlaceFilter } from '../../storage/placeFilter.js';

const MAX_NAME = 200;

/** The parameters' zod fields (OpenAPI is generated from them); toPlaceFilter checks the values. */
export const placeQueryFields = {
  country: z.string().optional().describe('ours: ISO 3166-1 alpha-2 country code of the place (any case), e.g. PT'),
  place: z.string().optional().describe('ours: the place (city) name, exact, any case, e.g. Lisbon'),
  camera: z.string().optional().describe('ours: the camera model (camera.model), exact, any ASCII case'),
  bbox: z
    .string()
    .optional()
    .describe(
      'ours: west,south,east,north in degrees: items whose position lies inside; west > east crosses the antimeridian',
    ),
};

export interface PlaceParams {
  country?: string;
  place?: string;
  camera?: string;
  bbox?: string;
}

/** The filter the parameters name (null for none), or a 400 naming the bad one. */
export function toPlaceFilter(params: PlaceParams): PlaceFilter | null {
  const filter: PlaceFilter = {};
  if (params.country !== undefined) {
    const code = params.country.trim();
    if (!/^[A-Za-z]{2}$/.test(code)) throw invalid('country must be an ISO 3166-1 alpha-2 code, such as PT');
    filter.country = code.toUpperCase();
  }
  if (params.place !== undefined) filter.place = name(params.place, 'place').toLowerCase();
  if (params.camera !== undefined) filter.camera = name(params.camera, 'camera');
  if (params.bbox !== undefined) filter.bbox = bbox(params.bbox);
  return Object.keys(filter).length ? filter : null;
}

function name(value: string, field: string): string {
  const v = value.trim();
  if (!v) throw invalid(`${field} must not be empty`);
  if (v.length > MAX_NAME) throw invalid(`${field} is at most ${MAX_NAME} characters`);
  return v;
}

function bbox(value: string): [number, number, number, number] {
  const parts = value.split(',').map((p) => p.trim());
  const numbers = parts.map((p) => (/^[-+]?(\d+\.?\d*|\.\d+)$/.test(p) ? Number(p) : NaN));
  if (numbers.length !== 4 || numbers.some((n) => !Number.isFinite(n)))
    throw invalid('bbox must be four numbers: west,south,east,north (degrees)');
  const [west, south, east, north] = numbers;
  if ([west, east].some((x) => x < -180 || x > 180)) throw invalid('bbox longitudes must be between -180 and 180');
  if ([south, north].some((y) => y < -90 || y > 90)) throw invalid('bbox latitudes must be between -90 and 90');
  if (south > north) throw invalid('bbox south must not be above north');
  return [west, south, east, north];
}
