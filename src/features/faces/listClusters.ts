import { loadCollection } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/** GET /api/dataset/{id}/clusters (ours): face identities of a collection, biggest first, each with a preview face. */
export async function listClusters(
  deps: Pick<Services, 'storage' | 'urls'>,
  principal: Principal,
  collectionId: string,
  page: { limit: number; offset: number; minSize: number },
) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  const [items, total] = await Promise.all([
    deps.storage.clusters.listClusters(collection.id, page),
    deps.storage.clusters.countClusters(collection.id, { minSize: page.minSize }),
  ]);
  return {
    clusters: items.map((c) => ({
      id: c.id,
      size: c.size,
      mediaCount: c.mediaCount,
      model: c.modelId,
      preview: c.previewBlobKey ? deps.urls.urlFor(c.previewBlobKey) : null,
      previewObjectId: c.previewObjectId,
      previewMediaId: c.previewMediaId,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
    })),
    pagination: { total, limit: page.limit, offset: page.offset, hasMore: page.offset + items.length < total },
  };
}
