/**
 * "These may be the same person": pairs of a collection's visible clusters whose centres (unit centroids)
 * are at least as alike as the face model's join threshold (models/catalog.json `clusterThreshold`, or the
 * FACE_CLUSTER_THRESHOLDS setting). The background clusterer merges on the mean likeness of the members,
 * which is lower than the centres' for any cluster of more than one face, so these are the near misses it
 * left apart, best first; one click merges them (POST /api/clusters/{id}/merge), another says they are not the
 * same person (POST /api/clusters/{id}/not-same-person) and the pair is never suggested again.
 */
import { faceClusterThreshold } from '../../index/faces/thresholds.js';
import type { ClusterCentroid } from '../../index/faces/types.js';
import { dot } from '../../index/vector/math.js';
import { invalid, notFound } from '../../platform/errors.js';
import { orderedPair } from '../../storage/clusterDismissals.js';
import { loadCollection } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import { loadCluster, presentCluster } from './people.js';
import { declaredThresholds } from './thresholds.js';

/** The biggest clusters compared (all pairs: 1,000 clusters are 500,000 dot products). */
export const SUGGESTION_POOL = 1000;

/** Pairs at or above each model's threshold, best first; two differently named people are never a pair. */
export function similarPairs(
  clusters: ClusterCentroid[],
  thresholdOf: (modelId: string) => number,
): Array<{ a: string; b: string; similarity: number }> {
  const pairs: Array<{ a: string; b: string; similarity: number }> = [];
  for (let i = 0; i < clusters.length; i++) {
    const x = clusters[i];
    const threshold = thresholdOf(x.modelId);
    for (let j = i + 1; j < clusters.length; j++) {
      const y = clusters[j];
      if (y.modelId !== x.modelId || (x.name !== null && y.name !== null && x.name !== y.name)) continue;
      if (y.centroid.length !== x.centroid.length) continue;
      const similarity = dot(x.centroid, y.centroid);
      if (similarity >= threshold) pairs.push({ a: x.id, b: y.id, similarity });
    }
  }
  return pairs.sort((p, q) => q.similarity - p.similarity || p.a.localeCompare(q.a) || p.b.localeCompare(q.b));
}

/** GET /api/dataset/{id}/clusters/suggestions. */
export async function suggestPeople(
  deps: Pick<Services, 'storage' | 'urls' | 'config' | 'models'>,
  principal: Principal,
  collectionId: string,
  opts: { limit: number },
) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  const clusters = await deps.storage.clusters.clusterCentroids(collection.id, SUGGESTION_POOL);
  const declared = declaredThresholds(deps.models);
  const thresholds = new Map<string, number>();
  const thresholdOf = (modelId: string) => {
    let t = thresholds.get(modelId);
    if (t === undefined) {
      t = faceClusterThreshold(modelId, deps.config.faceClusterThresholds, declared);
      thresholds.set(modelId, t);
    }
    return t;
  };
  const dismissed = new Set((await deps.storage.clusterDismissals.list(collection.id)).map((p) => p.join(' ')));
  const pairs = similarPairs(clusters, thresholdOf)
    .filter((p) => !dismissed.has(orderedPair(p.a, p.b).join(' ')))
    .slice(0, opts.limit);
  const summaries = new Map<string, ReturnType<typeof presentCluster>>();
  for (const id of new Set(pairs.flatMap((p) => [p.a, p.b]))) {
    const c = await deps.storage.clusters.getCluster(id);
    if (c) summaries.set(id, presentCluster(deps, c));
  }
  return {
    suggestions: pairs
      .filter((p) => summaries.has(p.a) && summaries.has(p.b))
      .map((p) => ({
        a: summaries.get(p.a)!,
        b: summaries.get(p.b)!,
        similarity: Math.round(p.similarity * 1000) / 1000,
      })),
  };
}

/**
 * POST /api/clusters/{id}/not-same-person: these two people (of one collection) are not the same person; the
 * pair is no longer suggested.
 */
export async function dismissSuggestion(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  id: string,
  otherId: string,
) {
  const a = await loadCluster(deps, principal, id, 'member');
  const b = await loadCluster(deps, principal, otherId, 'member');
  if (a.collectionId !== b.collectionId) throw notFound('person not found');
  if (a.id === b.id) throw invalid('name another person than this one');
  await deps.storage.clusterDismissals.dismiss(a.collectionId, a.id, b.id, principal.userId);
  return { dismissed: true, clusterIds: orderedPair(a.id, b.id) };
}
