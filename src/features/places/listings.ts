/**
 * The places, cameras and map listings of a collection (issue #26): what the places page, the filter chips
 * and the map read. Viewers may read them; counts are of live, non-archived items.
 */
import { loadCollection } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import { toPlaceFilter } from '../kernel/placeParams.js';
import { browseScopeOf, type BrowseParams } from '../library/index.js';

/** Most positions one map answer carries (a collection with more gets the first this many). */
export const MAP_MAX_POINTS = 250_000;

/** Degrees to 5 decimals: about a metre, and a third of the bytes of a double's full text. */
const round5 = (x: number) => Math.round(x * 1e5) / 1e5;

type Deps = Pick<Services, 'storage'>;

export async function listPlaces(deps: Deps, principal: Principal, collectionId: string, country?: string) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  const code = country !== undefined ? toPlaceFilter({ country })!.country! : null;
  const { countries, places } = await deps.storage.places.places(collection.id, code);
  return {
    countries,
    places: places.map((p) => ({ ...p, latitude: round5(p.latitude), longitude: round5(p.longitude) })),
  };
}

export async function listCameras(deps: Deps, principal: Principal, collectionId: string) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  return { cameras: await deps.storage.places.cameras(collection.id) };
}

/** Every geotagged live item the browse filters let through, columnar: ids, latitudes and longitudes. */
export async function mapPoints(
  deps: Deps,
  principal: Principal,
  collectionId: string,
  params: Omit<BrowseParams, 'q' | 'similarToObjectId' | 'similarToVector'>,
) {
  const scope = await browseScopeOf(deps, principal, collectionId, params);
  // The positions are read for the ids listed (items without one drop there); a place filter probes anyway.
  const located = scope.places ? { ...scope, places: { ...scope.places, located: true } } : scope;
  const ids = await deps.storage.media.browseIds(located, MAP_MAX_POINTS);
  const points = await deps.storage.places.points(ids);
  return {
    total: points.ids.length,
    ids: points.ids,
    latitudes: points.latitudes.map(round5),
    longitudes: points.longitudes.map(round5),
  };
}
