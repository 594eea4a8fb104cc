/**
 * The browse screen's state lives in its URL (/c/:datasetId?path=…&type=…&sort=…&dir=…&from=…&to=…&tags=…&recursive=1),
 * so reload, back and a shared link show the same listing. This file reads and writes that URL and turns
 * it into the browse API's query parameters.
 */

/** What the listing shows. Absent fields are the defaults (root, all types, newest first, no filters). */
export interface BrowseState {
  path: string;
  type: 'all' | 'image' | 'video';
  sort: 'date' | 'name' | 'type';
  dir: 'asc' | 'desc';
  /** YYYY-MM-DD, inclusive. */
  from: string;
  to: string;
  tags: string[];
  recursive: boolean;
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
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const oneOf = <T extends string>(value: string | null, allowed: readonly T[], fallback: T): T =>
  allowed.includes(value as T) ? (value as T) : fallback;

/** The state a URL's query names; anything unknown or malformed falls back to its default. */
export function readState(query: URLSearchParams): BrowseState {
  const day = (v: string | null) => (v && DAY.test(v) ? v : '');
  return {
    path: query.get('path') ?? '',
    type: oneOf(query.get('type'), ['all', 'image', 'video'] as const, 'all'),
    sort: oneOf(query.get('sort'), ['date', 'name', 'type'] as const, 'date'),
    dir: oneOf(query.get('dir'), ['asc', 'desc'] as const, 'desc'),
    from: day(query.get('from')),
    to: day(query.get('to')),
    tags: (query.get('tags') ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    recursive: query.get('recursive') === '1',
  };
}

/** The screen's URL for a state: only what differs from the defaults, in a stable order. */
export function stateUrl(datasetId: string, state: BrowseState): string {
  const q = new URLSearchParams();
  if (state.path) q.set('path', state.path);
  if (state.type !== 'all') q.set('type', state.type);
  if (state.sort !== 'date') q.set('sort', state.sort);
  if (state.dir !== 'desc') q.set('dir', state.dir);
  if (state.from) q.set('from', state.from);
  if (state.to) q.set('to', state.to);
  if (state.tags.length) q.set('tags', state.tags.join(','));
  if (state.recursive) q.set('recursive', '1');
  const qs = q.toString();
  return `/c/${encodeURIComponent(datasetId)}${qs ? `?${qs}` : ''}`;
}

/** True when any filter narrows the listing (the clear-all button shows then). */
export const hasFilters = (s: BrowseState): boolean =>
  s.type !== 'all' || !!s.from || !!s.to || s.tags.length > 0 || s.recursive;

const SORT_FIELD = { date: 'createdAt', name: 'name', type: 'type' } as const;

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
  };
}

/** A key naming the listing (everything but paging): a new key means a new result set. */
export const listingKey = (datasetId: string, state: BrowseState): string => stateUrl(datasetId, state);
