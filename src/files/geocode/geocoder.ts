/**
 * Offline reverse geocoding: a position → the nearest populated place of GeoNames (1,000 people or more, or a
 * seat of an administrative division), its region (admin1) and its country, with no network. Country names
 * are English, from Node's ICU (`Intl.DisplayNames`). A position whose nearest place is more than
 * MAX_DISTANCE_KM away (open sea, polar ice, the emptiest deserts) has none: a name 150 km off would say
 * something false.
 */
import { CELL_DEGREES, COLUMNS, ROWS, columnOf, rowOf, type PackedIndex } from './packedIndex.js';

/** Beyond this distance to the nearest place, a position has no place (README, "Places"). */
export const MAX_DISTANCE_KM = 100;

const EARTH_RADIUS_KM = 6371.0088;
const KM_PER_DEGREE = (Math.PI * EARTH_RADIUS_KM) / 180;
const RAD = Math.PI / 180;

export interface Place {
  city: string;
  region: string | null;
  /** The country's English name. */
  country: string;
  /** ISO 3166-1 alpha-2, upper case. */
  countryCode: string;
}

export interface Geocoder {
  /** The data version (stored with each place, so a newer package recomputes them). */
  readonly version: string;
  /** The nearest place within MAX_DISTANCE_KM, or null; null too for an impossible position. */
  lookup(latitude: number, longitude: number): Place | null;
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** The English name of a country code (the code itself when ICU knows none). */
export function countryName(code: string): string {
  try {
    return regionNames.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** Great-circle distance in kilometres (haversine). */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A geocoder over a packed index (built here or received from the worker thread). */
export function geocoderOf(index: PackedIndex): Geocoder {
  const names = index.names.split('\0');
  const codes = index.countryCodes.split('\0');
  const countries = codes.map(countryName);
  const regions = index.regionNames.split('\0');
  const { latitudes, longitudes, cellStart } = index;
  const dLat = MAX_DISTANCE_KM / KM_PER_DEGREE;

  const maxRows = Math.ceil(dLat / CELL_DEGREES) + 1;

  /**
   * The nearest place's position in the index within the radius, or -1: the cells in rings around the
   * position's own, nearest first, compared by the equirectangular distance (exact enough within 100 km),
   * until a ring's nearest edge is farther than the best place found.
   */
  const nearest = (lat: number, lon: number): number => {
    const cosLat = Math.cos(lat * RAD);
    const row0 = rowOf(lat);
    const column0 = Math.floor((lon + 180) / CELL_DEGREES);
    // The radius in columns at the box's edge nearest a pole (every column near a pole).
    const edge = Math.min(90, Math.abs(lat) + dLat);
    const cosEdge = Math.cos(edge * RAD);
    const half = COLUMNS / 2;
    const maxColumns =
      cosEdge < 1e-9 ? half : Math.min(half, Math.ceil(MAX_DISTANCE_KM / (KM_PER_DEGREE * cosEdge) / CELL_DEGREES) + 1);
    let best = -1;
    let bestD2 = (MAX_DISTANCE_KM / KM_PER_DEGREE) ** 2;
    const scan = (row: number, column: number) => {
      if (row < 0 || row >= ROWS) return;
      const cell = row * COLUMNS + columnOf(column);
      for (let i = cellStart[cell]; i < cellStart[cell + 1]; i++) {
        const dy = latitudes[i] - lat;
        let dx = Math.abs(longitudes[i] - lon);
        if (dx > 180) dx = 360 - dx;
        const d2 = dy * dy + dx * cosLat * (dx * cosLat);
        if (d2 < bestD2) {
          bestD2 = d2;
          best = i;
        }
      }
    };
    for (let r = 0; r <= Math.max(maxRows, maxColumns); r++) {
      const reach = Math.max(0, r - 1) * CELL_DEGREES * cosLat;
      if (best >= 0 && reach * reach > bestD2) break;
      const columns = Math.min(r, maxColumns);
      if (r <= maxRows) {
        for (let dc = -columns; dc <= columns; dc++) {
          if (2 * Math.abs(dc) === COLUMNS && dc > 0) continue;
          scan(row0 - r, column0 + dc);
          if (r > 0) scan(row0 + r, column0 + dc);
        }
      }
      if (r === 0 || r > maxColumns) continue;
      for (let dr = -Math.min(r - 1, maxRows); dr <= Math.min(r - 1, maxRows); dr++) {
        scan(row0 + dr, column0 - r);
        if (2 * r !== COLUMNS) scan(row0 + dr, column0 + r);
      }
    }
    return best >= 0 && distanceKm(lat, lon, latitudes[best], longitudes[best]) <= MAX_DISTANCE_KM ? best : -1;
  };

  return {
    version: index.version,
    lookup(latitude, longitude) {
      if (!Number.isFinite(latitude) || !Number.isFinite(longitude) || Math.abs(latitude) > 90) return null;
      if (Math.abs(longitude) > 180) return null;
      const i = nearest(latitude, longitude);
      if (i < 0) return null;
      const region = index.regions[i];
      return {
        city: names[i],
        region: region >= 0 ? regions[region] : null,
        country: countries[index.countries[i]],
        countryCode: codes[index.countries[i]],
      };
    },
  };
}
