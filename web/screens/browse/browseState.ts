/**
 * The browse screen's state lives in its URL, so reload, back and a shared link show the same listing:
 * /c/:datasetId?path=…&type=…&sortBy=…&sortDirection=…&dateFrom=…&dateTo=…&tags=…&recursive=true.
 * The names and values are the browse API's own (GET /api/dataset/:id/media): the viewer, given this URL as
 * its `from`, copies them onto the same API call to step through the same list (viewer/neighbours.ts).
 * Ours: favorite=true (favourites only) and archived=include|only (archived items are hidden unless asked).
 * The short spellings sort (date|taken|name|type), dir, from and to are read too. Sorted by the date taken
 * (sortBy=takenAt, the server's own), the date range is over the date taken as well.
 * Where it was taken and with what (issue #26): country (ISO alpha-2), place (a city), camera (a model) and
 * bbox (west,south,east,north degrees, what a map cluster opens).
 */

/** What the listing shows. Absent fields are the defaults (root, all types, newest first, no filters). */
export interface BrowseState {
  path: string;
  type: 'all' | 'image' | 'video';
  /** date: when added (createdAt); taken: when taken (takenAt, or when added where unknown). */
  sort: 'date' | 'taken' | 'name' | 'type';
  dir: 'asc' | 'desc';
  /** YYYY-MM-DD, inclusive. */
  from: string;
  to: string;
  tags: string[];
  recursive: boolean;
  /** Favourites only. */
  favorite: boolean;
  /** Archived items: hidden (the default), shown with the rest, or alone. */
  archived: 'exclude' | 'include' | 'only';
  /** ISO 3166-1 alpha-2 country code, a city, a camera model, a `west,south,east,north` box; '' when unset. */
  country: string;
  place: string;
  camera: string;
  bbox: string;
}

export const DEFAULT_STATE: BrowseState = {
  path: '',
  type: 'all',
  sort: 'date',
  dir: 'desc',
  from: '',
  to: '',
  tags: [],
  recursive: false,
  favorite: false,
  archived: 'exclude',
  country: '',
  place: '',
  camera: '',
  bbox: '',
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const oneOf = <T extends string>(value: string | null, allowed: readonly T[], fallback: T): T =>
  allowed.includes(value as T) ? (value as T) : fallback;

/** The state a URL's query names; anything unknown or malformed falls back to its default. */
export function readState(query: URLSearchParams): BrowseState {
  const day = (v: string | null) => (v && DAY.test(v) ? v : '');
  const sortBy = query.get('sortBy');
  return {
    path: query.get('path') ?? '',
    type: oneOf(query.get('type'), ['all', 'image', 'video'] as const, 'all'),
    sort: oneOf(
      sortBy === 'createdAt' ? 'date' : sortBy === 'takenAt' ? 'taken' : (sortBy ?? query.get('sort')),
      ['date', 'taken', 'name', 'type'] as const,
      'date',
    ),
    dir: oneOf(query.get('sortDirection') ?? query.get('dir'), ['asc', 'desc'] as const, 'desc'),
    from: day(query.get('dateFrom') ?? query.get('from')),
    to: day(query.get('dateTo') ?? query.get('to')),
    tags: (query.get('tags') ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    recursive: ['true', '1'].includes(query.get('recursive') ?? ''),
    favorite: ['true', '1'].includes(query.get('favorite') ?? ''),
    archived: oneOf(query.get('archived'), ['exclude', 'include', 'only'] as const, 'exclude'),
    country: /^[A-Za-z]{2}$/.test(query.get('country') ?? '') ? query.get('country')!.toUpperCase() : '',
    place: query.get('place')?.trim() ?? '',
    camera: query.get('camera')?.trim() ?? '',
    bbox: readBbox(query.get('bbox')),
  };
}

/** A `west,south,east,north` box in degrees, as given, or '' when it is not one. */
function readBbox(value: string | null): string {
  const parts = (value ?? '').split(',').map(Number);
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n))) return '';
  const [w, s, e, n] = parts;
  return Math.abs(w) <= 180 && Math.abs(e) <= 180 && Math.abs(s) <= 90 && Math.abs(n) <= 90 && s <= n ? value! : '';
}

/** The screen's URL for a state: only what differs from the defaults, named as the API names them. */
export function stateUrl(datasetId: string, state: BrowseState): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(browseParams(state)))
    if (v !== undefined && !(k === 'sortBy' && v === 'createdAt') && !(k === 'sortDirection' && v === 'desc'))
      q.set(k, v);
  const qs = q.toString();
  return `/c/${encodeURIComponent(datasetId)}${qs ? `?${qs}` : ''}`;
}

/** True when any filter narrows the listing (the clear-all button shows then). */
export const hasFilters = (s: BrowseState): boolean =>
  s.type !== 'all' ||
  !!s.from ||
  !!s.to ||
  s.tags.length > 0 ||
  s.recursive ||
  s.favorite ||
  s.archived !== 'exclude' ||
  !!(s.country || s.place || s.camera || s.bbox);

/** What clearing every filter sets. */
export const CLEARED: Partial<BrowseState> = {
  type: 'all',
  from: '',
  to: '',
  tags: [],
  recursive: false,
  favorite: false,
  archived: 'exclude',
  country: '',
  place: '',
  camera: '',
  bbox: '',
};

const SORT_FIELD = { date: 'createdAt', taken: 'takenAt', name: 'name', type: 'type' } as const;

/** GET /api/dataset/:id/media parameters for a state (paging added by the caller). */
export function browseParams(state: BrowseState): Record<string, string | undefined> {
  return {
    path: state.path || undefined,
    recursive: state.recursive ? 'true' : undefined,
    type: state.type === 'all' ? undefined : state.type,
    dateFrom: state.from || undefined,
    dateTo: state.to || undefined,
    tags: state.tags.length ? state.tags.join(',') : undefined,
    sortBy: SORT_FIELD[state.sort],
    sortDirection: state.dir,
    favorite: state.favorite ? 'true' : undefined,
    archived: state.archived === 'exclude' ? undefined : state.archived,
    country: state.country || undefined,
    place: state.place || undefined,
    camera: state.camera || undefined,
    bbox: state.bbox || undefined,
  };
}

/** A key naming the listing (everything but paging): a new key means a new result set. */
export const listingKey = (datasetId: string, state: BrowseState): string => stateUrl(datasetId, state);
