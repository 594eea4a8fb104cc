import { loadCollection } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import { presentCluster } from './people.js';

/**
 * GET /api/dataset/{id}/clusters (ours): face identities (people) of a collection, named first, then biggest
 * first, each with a preview face; hidden ones only with includeHidden.
 */
export async function listClusters(
  deps: Pick<Services, 'storage' | 'urls'>,
  principal: Principal,
  collectionId: string,
  page: { limit: number; offset: number; minSize: number; includeHidden?: boolean },
) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  const filter = { minSize: page.minSize, includeHidden: page.includeHidden ?? false };
  const [items, total] = await Promise.all([
    deps.storage.clusters.listClusters(collection.id, { ...filter, limit: page.limit, offset: page.offset }),
    deps.storage.clusters.countClusters(collection.id, filter),
  ]);
  return {
    clusters: items.map((c) => presentCluster(deps, c)),
    pagination: { total, limit: page.limit, offset: page.offset, hasMore: page.offset + items.length < total },
  };
}
