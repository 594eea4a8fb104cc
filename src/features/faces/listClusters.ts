import { loadCollection } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import { presentCluster } from './people.js';

/**
 * GET /api/dataset/{id}/clusters (ours): face identities (people) of a collection, named first, then biggest
 * first, each with a preview face; hidden ones only with includeHidden.
 */
export async function listClusters(
  deps: Pick<Services, 'storage' | 'urls' | 'models'>,
  principal: Principal,
  collectionId: string,
  page: { limit: number; offset: number; minSize: number; includeHidden?: boolean },
) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  const filter = { minSize: page.minSize, includeHidden: page.includeHidden ?? false };
  const [items, total, pending] = await Promise.all([
    deps.storage.clusters.listClusters(collection.id, { ...filter, limit: page.limit, offset: page.offset }),
    deps.storage.clusters.countClusters(collection.id, filter),
    deps.storage.clusters.pendingCount(collection.id),
  ]);
  const roles = deps.models.roles();
  return {
    // Whether faces can be found at all (a face detector and a face embedder), and how many wait to be grouped.
    faces: { modelsReady: roles.detectFaces !== null && roles.embedFaces !== null, pending },
    clusters: items.map((c) => presentCluster(deps, c)),
    pagination: { total, limit: page.limit, offset: page.offset, hasMore: page.offset + items.length < total },
  };
}
