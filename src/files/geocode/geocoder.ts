/**
 * Offline reverse geocoding: a position → the nearest populated place of GeoNames (1,000 people or more, or a
 * seat of an administrative division), its region (admin1) and its country, with no network. Country names
 * are English, from Node's ICU (`Intl.DisplayNames`). A position whose nearest place is more than
 * MAX_DISTANCE_KM away (open sea, polar ice, the emptiest deserts) has none: a name 150 km off would say
 * something false.
 */
import { COLUMNS, ROWS, columnOf, type PackedIndex } from './packedIndex.js';

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

  /** The nearest place's position in the index within the radius, or -1. */
  const nearest = (lat: number, lon: number): number => {
    const firstRow = Math.max(0, Math.floor(lat - dLat + 90));
    const lastRow = Math.min(ROWS - 1, Math.floor(lat + dLat + 90));
    // The widest the radius is in longitude: at the row edge nearest a pole.
    const edge = Math.min(90, Math.max(Math.abs(lat - dLat), Math.abs(lat + dLat)));
    const cos = Math.cos(edge * RAD);
    const dLon = cos < 1e-9 ? 180 : Math.min(180, MAX_DISTANCE_KM / (KM_PER_DEGREE * cos));
    const all = dLon >= 180;
    const firstColumn = all ? 0 : Math.floor(lon - dLon + 180);
    const lastColumn = all ? COLUMNS - 1 : Math.min(firstColumn + COLUMNS - 1, Math.floor(lon + dLon + 180));
    let best = -1;
    let bestKm = MAX_DISTANCE_KM;
    for (let row = firstRow; row <= lastRow; row++) {
      for (let column = firstColumn; column <= lastColumn; column++) {
        const cell = row * COLUMNS + columnOf(column);
        for (let i = cellStart[cell]; i < cellStart[cell + 1]; i++) {
          const km = distanceKm(lat, lon, latitudes[i], longitudes[i]);
          if (km <= bestKm) {
            bestKm = km;
            best = i;
          }
        }
      }
    }
    return best;
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
