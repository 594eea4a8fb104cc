/**
 * Places, cameras and positions of items (migrations 033 / 066): what the stores keep in `media_places` from
 * each item's exif (position, camera) and what the places sweep computes offline (the nearest place). Both
 * engines implement it and pass the same contract tests (test/storage/placesSuite.ts).
 */
import type { PlaceFilter } from './placeFilter.js';

export type { PlaceFilter };

/** A place as stored: the nearest populated place, its region (admin1) and country. */
export interface StoredPlace {
  city: string;
  region: string | null;
  /** English name. */
  country: string;
  /** ISO 3166-1 alpha-2, upper case. */
  countryCode: string;
}

/** An item whose place is to be computed: its position. */
export interface PendingPlace {
  mediaId: string;
  latitude: number;
  longitude: number;
}

export interface CountryCount {
  countryCode: string;
  country: string;
  count: number;
}

export interface PlaceCount extends StoredPlace {
  count: number;
  /** Where the place is: the mean position of its items (rounded by the caller). */
  latitude: number;
  longitude: number;
}

export interface CameraCount {
  make: string | null;
  model: string | null;
  count: number;
}

/** Positions of items, columnar, in the order of the ids asked (items without one left out). */
export interface MapPoints {
  ids: string[];
  latitudes: number[];
  longitudes: number[];
}

/** What `exif.place` holds: the place and the position it was computed for (presentCapture.ts checks it). */
export function exifPlace(place: StoredPlace | null, latitude: number, longitude: number, version: string) {
  return place ? { ...place, latitude, longitude, version } : { none: true, latitude, longitude, version };
}

export interface PlaceStore {
  /** Items with a position whose place was computed with another data version or never, at most `limit`. */
  pending(version: string, limit: number): Promise<PendingPlace[]>;
  /**
   * Stores computed places (null: no place near), each only while the item's position is still the one it
   * was computed for; also sets `exif.place` (what the media object shows). How many rows changed.
   */
  setPlaces(rows: Array<PendingPlace & { place: StoredPlace | null }>, version: string): Promise<number>;
  /** Countries and places of the collection's live, non-archived items, by count (most first). */
  places(
    collectionId: string,
    countryCode: string | null,
  ): Promise<{ countries: CountryCount[]; places: PlaceCount[] }>;
  /** Cameras of the collection's live, non-archived items, by count (most first). */
  cameras(collectionId: string): Promise<CameraCount[]>;
  /** Those of these items the filter lets through, in no order (the organization search's place filters). */
  matching(ids: string[], filter: PlaceFilter): Promise<string[]>;
  /** The positions of these items (for the map), in the order given. */
  points(ids: string[]): Promise<MapPoints>;
}

// Storage.places is declared here, beside its interface (storage.ts is at the 400-line limit), as bulkStore.ts
// does: both engines' stores (sqlite/index.ts, postgres/index.ts) provide it.
declare module './storage.js' {
  interface Storage {
    /** Positions, cameras and places of items: the place filters' listings and the places sweep. */
    places: PlaceStore;
  }
}
