/**
 * The search screen's state lives in its URL (reload and share keep it): the query, the cut-off, the order
 * and the filters. This module reads and writes that URL and turns it into the API request: scored browse
 * (GET /api/dataset/:id/media?q=…) in a collection, GET /api/search for the whole organization.
 */
import { apiUrl } from '../../lib/api';

export interface SearchState {
  q: string;
  /** Search by example: `image` (the image held in example.ts), `like` (more like a region or whole frame). */
  by: 'text' | 'image' | 'like';
  /** The object (a region, or a frame's whole-frame object) that `by=like` searches with. */
  like: string;
  /** Relevance cut-off, 0..1. */
  minScore: number;
  /** Newest first among the matches (instead of best first). */
  newest: boolean;
  type: 'all' | 'image' | 'video';
  dateFrom: string;
  dateTo: string;
  /** Tag values an item must all carry (collection search only). */
  tags: string[];
  /** A folder of the collection (ltree path) whose subtree is searched; '' the whole collection. */
  path: string;
  /** Where and with what (issue #26): ISO alpha-2 country, a city, a camera model, a map box; '' unset. */
  country: string;
  place: string;
  camera: string;
  bbox: string;
}

/** The default cut-off: low enough to keep loose matches, high enough to drop noise. */
export const DEFAULT_MIN_SCORE = 0.3;
/** Results asked for at once. */
export const PAGE_SIZE = 48;

export function readState(query: URLSearchParams): SearchState {
  const min = Number(query.get('minScore'));
  const type = query.get('type');
  return {
    q: query.get('q') ?? '',
    by: query.get('by') === 'image' ? 'image' : query.get('like') ? 'like' : 'text',
    like: query.get('like') ?? '',
    minScore: query.has('minScore') && Number.isFinite(min) ? Math.min(1, Math.max(0, min)) : DEFAULT_MIN_SCORE,
    newest: query.get('sort') === 'newest',
    type: type === 'image' || type === 'video' ? type : 'all',
    dateFrom: query.get('dateFrom') ?? '',
    dateTo: query.get('dateTo') ?? '',
    tags: (query.get('tags') ?? '').split(',').filter(Boolean),
    path: query.get('path') ?? '',
    country: /^[A-Za-z]{2}$/.test(query.get('country') ?? '') ? query.get('country')!.toUpperCase() : '',
    place: query.get('place')?.trim() ?? '',
    camera: query.get('camera')?.trim() ?? '',
    bbox: query.get('bbox') ?? '',
  };
}

/** The screen's own URL for a state (defaults left out). */
export function stateUrl(base: string, s: SearchState): string {
  return apiUrl(base, {
    q: s.by === 'text' ? s.q : undefined,
    by: s.by === 'image' ? 'image' : undefined,
    like: s.by === 'like' ? s.like : undefined,
    minScore: s.minScore === DEFAULT_MIN_SCORE ? undefined : s.minScore.toFixed(2),
    sort: s.newest ? 'newest' : undefined,
    type: s.type === 'all' ? undefined : s.type,
    dateFrom: s.dateFrom,
    dateTo: s.dateTo,
    tags: s.tags.join(','),
    path: s.path,
    country: s.country,
    place: s.place,
    camera: s.camera,
    bbox: s.bbox,
  });
}

/** The API request for a state: [path, query]. `datasetId` null: the whole organization. */
export function apiRequest(
  s: SearchState,
  datasetId: string | null,
  organizationId: string,
  offset = 0,
): [string, Record<string, string | number | undefined>] {
  const common = {
    q: s.q,
    minScore: s.minScore,
    type: s.type === 'all' ? undefined : s.type,
    dateFrom: s.dateFrom || undefined,
    dateTo: s.dateTo || undefined,
    sortBy: s.newest ? 'createdAt' : undefined,
    sortDirection: s.newest ? 'desc' : undefined,
    limit: PAGE_SIZE,
    country: s.country || undefined,
    place: s.place || undefined,
    camera: s.camera || undefined,
    bbox: s.bbox || undefined,
  };
  if (!datasetId) return ['/api/search', { ...common, organizationId }];
  if (s.by === 'like') Object.assign(common, { q: undefined, similarToObjectId: s.like });
  return [
    `/api/dataset/${encodeURIComponent(datasetId)}/media`,
    {
      ...common,
      tags: s.tags.join(',') || undefined,
      path: s.path || undefined,
      recursive: s.path ? 'true' : undefined,
      offset,
    },
  ];
}
