import { invalid } from '../../platform/errors.js';
import type { BrowseQuery, MediaRecord } from '../../storage/types.js';
import type { MonthBucket } from '../../storage/timelineStore.js';
import { loadCollection, loadOrganizationId } from '../kernel/access.js';
import { presentMany } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';
import { toBrowseQuery, type BrowseParams } from './browse.js';
import { resolveFolderPath } from './folders.js';
import { pathLabel } from '../../platform/ids.js';

/** How deep the organization's date-range listing pages (offset + limit): past it, a narrower date range. */
export const ORG_MEDIA_DEPTH = 20_000;

/** The timeline's filters (routes/timeline.ts): browse's, less sorting and paging; folders are never on it. */
export interface TimelineParams {
  path?: string;
  recursive: boolean;
  type: 'image' | 'video' | 'all';
  dateFrom?: string;
  dateTo?: string;
  tags?: string;
  tagFilters?: string;
  clusterId?: string;
  favorite?: boolean;
  archived?: BrowseParams['archived'];
}

/** The organization's date-range listing: the timeline's filters, newest (or oldest) capture first, one page. */
export interface OrgMediaParams extends Omit<TimelineParams, 'path' | 'recursive' | 'clusterId'> {
  datasetId?: string;
  sortDirection: 'asc' | 'desc';
  limit: number;
  offset: number;
}

type Deps = Pick<Services, 'storage'>;

/** A browse query by capture time over a collection's place, images and videos only. */
function timelineQuery(collectionId: string, path: string, params: TimelineParams, page?: Partial<BrowseParams>) {
  const query = toBrowseQuery(collectionId, path, {
    ...params,
    dateField: 'takenAt',
    sortBy: 'takenAt',
    sortDirection: 'desc',
    limit: 1,
    offset: 0,
    minScore: 0,
    ...page,
  });
  return { ...query, types: params.type === 'all' ? ['image', 'video'] : [params.type] } satisfies BrowseQuery;
}

const withTotal = (buckets: MonthBucket[]) => ({ buckets, total: buckets.reduce((n, b) => n + b.count, 0) });

/** A collection's month buckets (GET /api/dataset/:id/timeline): capture time, newest month first. */
export async function collectionTimeline(
  deps: Deps,
  principal: Principal,
  collectionId: string,
  params: TimelineParams,
) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  const path = await resolveFolderPath(deps, collection, params.path);
  return withTotal(await deps.storage.timeline.months(timelineQuery(collection.id, path, params)));
}

/** The collections a listing over the organization reads: every one of it, or the one named (checked as browse). */
async function orgCollections(deps: Deps, principal: Principal, orgId: string, datasetId?: string) {
  const id = await loadOrganizationId(deps, principal, orgId);
  if (datasetId !== undefined) return [(await loadCollection(deps, principal, datasetId, 'viewer')).id];
  return (await deps.storage.collections.list(id)).map((c) => c.id);
}

/** The organization's month buckets: every collection's, added up (GET /api/organization/:orgId/timeline). */
export async function organizationTimeline(
  deps: Deps,
  principal: Principal,
  orgId: string,
  params: Omit<TimelineParams, 'path' | 'recursive' | 'clusterId'>,
) {
  const ids = await orgCollections(deps, principal, orgId);
  const counts = new Map<string, number>();
  for (const id of ids) {
    const months = await deps.storage.timeline.months(timelineQuery(id, pathLabel(id), { ...params, recursive: true }));
    for (const b of months) counts.set(b.month, (counts.get(b.month) ?? 0) + b.count);
  }
  const buckets = [...counts].map(([month, count]) => ({ month, count }));
  return withTotal(buckets.sort((a, b) => (a.month < b.month ? 1 : a.month > b.month ? -1 : 0)));
}

/** The key items are ordered by: media_scope.taken_at (the capture time, else createdAt), then the id. */
const orderKey = (m: MediaRecord) => `${m.takenAt ?? m.createdAt}\u0000${m.id}`;

/**
 * One page of the organization's items by capture time (GET /api/organization/:orgId/media): each collection's
 * first offset + limit items of the range, merged in order; the timeline asks one month at a time.
 */
export async function organizationMedia(
  deps: Pick<Services, 'storage' | 'urls'>,
  principal: Principal,
  orgId: string,
  params: OrgMediaParams,
) {
  if (params.offset + params.limit > ORG_MEDIA_DEPTH)
    throw invalid(`offset + limit may be at most ${ORG_MEDIA_DEPTH}: narrow dateFrom/dateTo to reach further`);
  const ids = await orgCollections(deps, principal, orgId, params.datasetId);
  const page = { sortDirection: params.sortDirection, limit: params.offset + params.limit, offset: 0 };
  let total = 0;
  const all: MediaRecord[] = [];
  for (const id of ids) {
    const query = timelineQuery(id, pathLabel(id), { ...params, recursive: true }, page);
    const { items, total: n } = await deps.storage.media.browse(query);
    total += n;
    all.push(...items);
  }
  const sign = params.sortDirection === 'desc' ? -1 : 1;
  all.sort((a, b) => (orderKey(a) < orderKey(b) ? -sign : orderKey(a) > orderKey(b) ? sign : 0));
  const items = all.slice(params.offset, params.offset + params.limit);
  return {
    media: await presentMany(deps, items),
    pagination: {
      total,
      limit: params.limit,
      offset: params.offset,
      hasMore: params.offset + items.length < total,
    },
  };
}
