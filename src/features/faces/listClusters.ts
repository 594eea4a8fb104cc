import { loadCollection } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/** GET /api/dataset/{id}/clusters (ours): face identities of a collection, biggest first, each with a preview face. */
export async function listClusters(
  s: Services,
  p: Principal,
  collectionId: string,
  q: { limit: number; offset: number; minSize: number },
) {
  const collection = await loadCollection(s, p, collectionId, 'viewer');
  const [items, total] = await Promise.all([
    s.storage.clusters.listClusters(collection.id, q),
    s.storage.clusters.countClusters(collection.id, { minSize: q.minSize }),
  ]);
  return {
    clusters: items.map((c) => ({
      id: c.id,
      size: c.size,
      mediaCount: c.mediaCount,
      model: c.modelId,
      preview: c.previewBlobKey ? s.urls.urlFor(c.previewBlobKey) : null,
      previewObjectId: c.previewObjectId,
      previewMediaId: c.previewMediaId,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
    })),
    pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + items.length < total },
  };
}
