/**
 * ←/→ in the viewer step through the list the item was opened from (`from`: a browse or search URL). The
 * list is not kept anywhere: the same query runs again, page by page, until the item is found, and its
 * neighbours are the items before and after it.
 */
import { api, apiUrl } from '../../lib/api';
import { match } from '../../lib/router';
import { session } from '../../lib/session';
import { apiRequest, readState } from '../search/searchState';
import type { MediaItem, OrgSearchResult } from './types';
import { timelineIds } from '../timeline/timelineApi';

export interface Neighbours {
  previous: string | null;
  next: string | null;
}

/** Browse parameters a browse URL may carry that the API understands (the rest are the screen's own). */
const BROWSE_PARAMS = [
  'path',
  'recursive',
  'type',
  'dateFrom',
  'dateTo',
  'sortBy',
  'sortDirection',
  'tags',
  'tagFilters',
  'clusterId',
  'favorite',
  'archived',
  'country',
  'place',
  'camera',
  'bbox',
];
const PAGE = 100;
/** Pages read at most before giving up (an item deep in a huge list has no ←/→). */
const MAX_PAGES = 10;

/** The ids of the list `from` shows, one page at a time. */
async function* idsOf(from: string): AsyncGenerator<string[]> {
  const url = new URL(from, window.location.origin);
  if (url.pathname === '/search') {
    const state = readState(url.searchParams);
    const [path, query] = apiRequest(state, null, session.value?.organizationId ?? '');
    const r = await api<{ results: OrgSearchResult[] }>('GET', path, { query: { ...query, limit: 200 } });
    yield r.results.map((x) => x.media.id);
    return;
  }
  const timeline = url.pathname === '/timeline' ? {} : match('/c/:datasetId/timeline', url.pathname);
  if (timeline) return yield* timelineIds(url, session.value?.organizationId ?? '', timeline.datasetId);
  const scored = match('/c/:datasetId/search', url.pathname);
  const browse = match('/c/:datasetId', url.pathname);
  const datasetId = scored?.datasetId ?? browse?.datasetId;
  if (!datasetId) return;
  for (let page = 0; page < MAX_PAGES; page++) {
    let path: string;
    let query: Record<string, string | number | undefined>;
    if (scored) [path, query] = apiRequest(readState(url.searchParams), datasetId, '', page * PAGE);
    else {
      path = `/api/dataset/${encodeURIComponent(datasetId)}/media`;
      query = Object.fromEntries(BROWSE_PARAMS.map((k) => [k, url.searchParams.get(k) ?? undefined]));
      query.offset = page * PAGE;
    }
    const r = await api<{ media: MediaItem[]; pagination: { hasMore: boolean } }>('GET', path, {
      query: { ...query, limit: PAGE },
    });
    yield r.media.filter((m) => m.type !== 'folder').map((m) => m.id);
    if (!r.pagination.hasMore) return;
  }
}

/** The items before and after `mediaId` in the list `from` shows (null at either end, or when not found). */
export async function findNeighbours(from: string, mediaId: string): Promise<Neighbours> {
  const seen: string[] = [];
  for await (const ids of idsOf(from)) {
    for (const id of ids) if (seen[seen.length - 1] !== id) seen.push(id);
    const at = seen.indexOf(mediaId);
    if (at >= 0 && at < seen.length - 1) return { previous: seen[at - 1] ?? null, next: seen[at + 1] };
  }
  const at = seen.indexOf(mediaId);
  return at < 0 ? { previous: null, next: null } : { previous: seen[at - 1] ?? null, next: null };
}

/** The viewer URL of another item of the same list. */
export const viewerUrl = (mediaId: string, from: string | null): string =>
  apiUrl(`/m/${encodeURIComponent(mediaId)}`, { from: from ?? undefined });
