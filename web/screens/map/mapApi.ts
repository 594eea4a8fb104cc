/** The map and places screens' calls to the JSON API (GET /api/dataset/:id/map, /places, /cameras). */
import { api } from '../../lib/api';

/** The geotagged live items of a collection, as parallel arrays (compact for 50,000 points); `total` counts
 * them all when the server sends fewer (it caps the points it sends). */
export interface MapPoints {
  total: number;
  ids: string[];
  latitudes: number[];
  longitudes: number[];
}

export interface PlaceCount {
  city: string;
  region: string | null;
  country: string;
  countryCode: string;
  count: number;
  latitude: number;
  longitude: number;
}

export interface Places {
  countries: Array<{ countryCode: string; country: string; count: number }>;
  places: PlaceCount[];
}

const base = (datasetId: string) => `/api/dataset/${encodeURIComponent(datasetId)}`;

/** The points, narrowed by the browse filters in `filters` (the map's own URL query). */
export const fetchMapPoints = (datasetId: string, filters: Record<string, string>, signal?: AbortSignal) =>
  api<MapPoints>('GET', `${base(datasetId)}/map`, { query: filters, signal });

export const fetchPlaces = (datasetId: string, signal?: AbortSignal) =>
  api<Places>('GET', `${base(datasetId)}/places`, { signal });

export const fetchCameras = (datasetId: string, signal?: AbortSignal) =>
  api<{ cameras: Array<{ make: string | null; model: string | null; count: number }> }>(
    'GET',
    `${base(datasetId)}/cameras`,
    {
      signal,
    },
  );

/** The browse URL of a collection's items filtered by `filters` (all folders: recursive). */
export function browseHref(datasetId: string, filters: Record<string, string>): string {
  const q = new URLSearchParams({ recursive: 'true', ...filters });
  return `/c/${encodeURIComponent(datasetId)}?${q}`;
}

/** The browse filters the map passes on (the API's names); anything else in a URL is ignored. */
export const MAP_FILTERS = ['type', 'tags', 'favorite', 'archived', 'country', 'place', 'camera'];

/** The map's URL showing what a browse listing's filters let through (`params`: browse's API parameters). */
export function mapHref(datasetId: string, params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const name of MAP_FILTERS) if (params[name]) q.set(name, params[name]!);
  const qs = q.toString();
  return `/c/${encodeURIComponent(datasetId)}/map${qs ? `?${qs}` : ''}`;
}
