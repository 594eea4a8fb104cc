import { invalid, notFound } from '../../platform/errors.js';
import { scoredBrowse, scoredIds, type SearchDeps } from '../search/index.js';
import type { ArchivedFilter, BrowseQuery, DateField, MediaType, SortField } from '../../storage/types.js';
import { loadCollection } from '../kernel/access.js';
import { toPlaceFilter, type PlaceParams } from '../kernel/placeParams.js';
import { resolveFolderPath } from './folders.js';
import { presentMany } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';

export const BROWSE_MAX_LIMIT = 1000;

/** Browse parameters after schema validation (src/features/library/routes/browse.ts). */
export interface BrowseParams extends PlaceParams {
  path?: string;
  recursive: boolean;
  limit: number;
  offset: number;
  type: MediaType | 'all';
  dateFrom?: string;
  dateTo?: string;
  /** Ours: which date dateFrom/dateTo bound; by default takenAt when sorting by it, else createdAt (the spec's). */
  dateField?: DateField;
  sortBy: SortField;
  sortDirection: 'asc' | 'desc';
  tags?: string;
  tagFilters?: string;
  mediaId?: string;
  clusterId?: string;
  /** Ours: only items of this album (features/share); the listing then spans the whole collection. */
  albumId?: string;
  q?: string;
  similarToObjectId?: string;
  similarToObjectModel?: 'faces' | 'objects' | 'shoeprints';
  /** Search by example (searchByImage.ts): an image's embedding, scored image to image. */
  similarToVector?: { modelId: string; vector: Float32Array };
  minScore: number;
  /** Ours: true lists favourites only. */
  favorite?: boolean;
  /** Ours: archived items are left out (`exclude`, the default), listed with the rest (`include`), or alone (`only`). */
  archived?: ArchivedFilter;
  /** Whether the client named sortBy (scored mode then orders by it instead of by score). */
  sortExplicit?: boolean;
}

/** `YYYY-MM-DD` → the UTC instant the day starts, or a 400 naming the field. */
export function dayStart(value: string, field: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const d = m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])) : null;
  if (!d || d.getUTCMonth() !== +m![2] - 1 || d.getUTCDate() !== +m![3])
    throw invalid(`${field} must be a date as YYYY-MM-DD`);
  return d;
}

/** tagFilters is a URL-encoded JSON object: group → array of values. */
export function parseTagFilters(raw: string): Record<string, string[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalid('tagFilters must be a JSON object mapping a tag group to an array of values');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalid('tagFilters must be a JSON object mapping a tag group to an array of values');
  }
  for (const [group, values] of Object.entries(parsed)) {
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
      throw invalid(`tagFilters.${group} must be an array of strings`);
    }
  }
  // Object.fromEntries defines own properties: a group named `__proto__` stays a filter (issue #29).
  return Object.fromEntries(Object.entries(parsed as Record<string, string[]>));
}

export function toBrowseQuery(collectionId: string, path: string, params: BrowseParams): BrowseQuery {
  let createdFrom: string | null = null;
  let createdBefore: string | null = null;
  if (params.dateFrom) createdFrom = dayStart(params.dateFrom, 'dateFrom').toISOString();
  if (params.dateTo) createdBefore = new Date(dayStart(params.dateTo, 'dateTo').getTime() + 86_400_000).toISOString();
  if (createdFrom && createdBefore && createdFrom >= createdBefore) throw invalid('dateFrom must not be after dateTo');
  return {
    collectionId,
    path,
    recursive: params.recursive,
    types: params.type === 'all' ? null : [params.type],
    createdFrom,
    createdBefore,
    // Sorted by the capture time, the date range is over it too: one range of the same index.
    dateField: params.dateField ?? (params.sortBy === 'takenAt' ? 'takenAt' : 'createdAt'),
    tagFilters: params.tagFilters ? parseTagFilters(params.tagFilters) : null,
    tagValues: params.tags
      ? params.tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean)
      : null,
    mediaId: params.mediaId ? params.mediaId.toLowerCase() : null,
    clusterId: params.clusterId ?? null,
    albumId: params.albumId ?? null,
    favorite: params.favorite === true ? true : null,
    archived: params.archived ?? 'exclude',
    places: toPlaceFilter(params),
    sortBy: params.sortBy,
    sortDirection: params.sortDirection,
    limit: params.limit,
    offset: params.offset,
  };
}

/** How browse lists for these parameters: scored (q, similarToObjectId) over a scope, or a plain listing. */
async function planBrowse(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  collectionId: string,
  params: BrowseParams,
  role: 'viewer' | 'member',
) {
  const collection = await loadCollection(deps, principal, collectionId, role);
  const path = await resolveFolderPath(deps, collection, params.path);
  if (params.albumId !== undefined) params = await albumScope(deps, collection.id, params);
  if (params.q !== undefined || params.similarToObjectId !== undefined || params.similarToVector) {
    // Scored mode searches the whole collection unless the client names a path
    // (then `recursive` applies as in browse); every other filter still applies.
    const pathGiven = params.path !== undefined && params.path.trim() !== '';
    const scope = toBrowseQuery(collection.id, path, { ...params, recursive: pathGiven ? params.recursive : true });
    const filtered =
      pathGiven ||
      !!scope.types ||
      !!scope.createdFrom ||
      !!scope.createdBefore ||
      !!scope.tagFilters ||
      !!scope.tagValues ||
      !!scope.mediaId ||
      !!scope.clusterId ||
      !!scope.albumId ||
      !!scope.places;
    const scored = {
      q: params.q,
      similarToObjectId: params.similarToObjectId,
      similarToObjectModel: params.similarToObjectModel,
      similarToVector: params.similarToVector,
      minScore: params.minScore,
      explicitSort: params.sortExplicit ? params.sortBy : null,
    };
    return { scored, scope, filtered };
  }
  return { scored: null, scope: toBrowseQuery(collection.id, path, params), filtered: true };
}

export async function browse(
  deps: SearchDeps & Pick<Services, 'urls'>,
  principal: Principal,
  collectionId: string,
  params: BrowseParams,
) {
  const { scored, scope, filtered } = await planBrowse(deps, principal, collectionId, params, 'viewer');
  if (scored) return scoredBrowse(deps, principal.organizationId, scope, filtered, scored);
  const query = scope;
  const { items, total } = await deps.storage.media.browse(query);
  return {
    media: await presentMany(deps, items),
    pagination: { total, limit: query.limit, offset: query.offset, hasMore: query.offset + items.length < total },
  };
}

/**
 * The ids of every item browse lists for these parameters (all pages), at most `cap` (one more tells the caller
 * there are more); the caller must be a member (a bulk selection by query, bulk.ts).
 */
export async function browseAllIds(
  deps: SearchDeps,
  principal: Principal,
  collectionId: string,
  params: BrowseParams,
  cap: number,
): Promise<{ ids: string[]; collectionId: string }> {
  const { scored, scope, filtered } = await planBrowse(deps, principal, collectionId, params, 'member');
  const ids = scored
    ? await scoredIds(deps, principal.organizationId, scope, filtered, scored)
    : await deps.storage.media.browseIds(scope, cap);
  return { ids: ids.slice(0, cap), collectionId: scope.collectionId };
}

/**
 * The plain listing query these parameters name (no scoring), after the access check (viewer) and the folder's
 * resolution: what listings over browse's filters read (features/places: the map).
 */
export async function browseScopeOf(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  collectionId: string,
  params: Omit<BrowseParams, 'q' | 'similarToObjectId' | 'similarToVector'>,
): Promise<BrowseQuery> {
  return (await planBrowse(deps, principal, collectionId, params, 'viewer')).scope;
}

/** An albumId filter: the album must be the collection's (else 404); without a path it spans the whole collection. */
async function albumScope(deps: Pick<Services, 'storage'>, collectionId: string, params: BrowseParams) {
  const album = /^[0-9a-f-]{36}$/i.test(params.albumId!)
    ? await deps.storage.albums.get(params.albumId!.toLowerCase())
    : null;
  if (!album || album.collectionId !== collectionId) throw notFound('album not found');
  const pathGiven = params.path !== undefined && params.path.trim() !== '';
  return { ...params, albumId: album.id, recursive: pathGiven ? params.recursive : true };
}
