/** The browse filters of issue #26 (BrowseQuery.places): every one given must hold. */
export interface PlaceFilter {
  /** ISO 3166-1 alpha-2, upper case. */
  country?: string;
  /** A city name, lower-cased (matches media_places.city_key). */
  place?: string;
  /** A camera model, matched without regard to ASCII case. */
  camera?: string;
  /** [west, south, east, north] in degrees; west > east crosses the antimeridian. */
  bbox?: [number, number, number, number];
  /** Only items with a position (the map). */
  located?: boolean;
}
