/** The timeline screen's calls to the JSON API: month buckets, and one month's items by capture time. */
import { api } from '../../lib/api';
import type { MediaItem } from '../browse/browseApi';

/** Items of one month of capture (`YYYY-MM`, UTC). */
export interface Bucket {
  month: string;
  count: number;
}

/** A timeline item: the grid's fields and the capture time (null where unknown: then createdAt places it). */
export interface TimelineItem extends MediaItem {
  takenAt?: string | null;
  datasetId: string;
}

/** Whose timeline: one collection's, or the whole organization's. */
export interface TimelineScope {
  orgId: string;
  datasetId?: string;
}

/** The month buckets, newest first. */
export function fetchBuckets(
  scope: TimelineScope,
  signal?: AbortSignal,
): Promise<{ buckets: Bucket[]; total: number }> {
  const path = scope.datasetId
    ? `/api/dataset/${encodeURIComponent(scope.datasetId)}/timeline`
    : `/api/organization/${encodeURIComponent(scope.orgId)}/timeline`;
  return api('GET', path, { signal });
}

/** The first and last day of a month, as the API's dateFrom / dateTo take them. */
export function monthRange(month: string): { dateFrom: string; dateTo: string } {
  const [y, m] = month.split('-').map(Number);
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return { dateFrom: `${month}-01`, dateTo: `${month}-${String(last).padStart(2, '0')}` };
}

/** Items `offset`… of one month, newest capture first: a date-range request, never an offset into the whole list. */
export function fetchMonth(
  scope: TimelineScope,
  month: string,
  offset: number,
  limit: number,
  signal?: AbortSignal,
): Promise<{ media: TimelineItem[]; pagination: { total: number } }> {
  return api('GET', `/api/organization/${encodeURIComponent(scope.orgId)}/media`, {
    query: { datasetId: scope.datasetId, ...monthRange(month), sortDirection: 'desc', offset, limit },
    signal,
  });
}

/** The UTC day (`YYYY-MM-DD`) an item sits on: its capture time, else its upload time (as the buckets count). */
export const dayOf = (item: TimelineItem): string => (item.takenAt ?? item.createdAt).slice(0, 10);

/**
 * The ids of the month a timeline URL (`/timeline?month=…`, `/c/:id/timeline?month=…`) was showing, page by page,
 * for the viewer's ←/→ (viewer/neighbours.ts); nothing without a month.
 */
export async function* timelineIds(url: URL, orgId: string, datasetId?: string): AsyncGenerator<string[]> {
  const month = url.searchParams.get('month');
  if (!month || !/^\d{4}-\d{2}$/.test(month)) return;
  for (let offset = 0; offset < 5000; offset += 500) {
    const page = await fetchMonth({ orgId, datasetId }, month, offset, 500);
    yield page.media.map((m) => m.id);
    if (offset + page.media.length >= page.pagination.total) return;
  }
}
