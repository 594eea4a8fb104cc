/**
 * What both engines' cluster stores (storage/sqlite and storage/postgres clusterStore.ts) do the same way when
 * they assign pending faces: how many faces one transaction takes, which pending rows can be clustered, and
 * the clusterer loaded with a group's clusters as stored.
 */
import { OnlineClusterer } from './clusterer.js';
import { faceClusterThreshold } from './thresholds.js';
import type { AssignOptions } from './types.js';
import { vectorFromBlob } from './vectorBlob.js';

/** Pending faces a call takes per (collection, model) when the caller names no batch size. */
export const DEFAULT_ASSIGN_BATCH = 256;
/**
 * Face × cluster comparisons per transaction, to bound how long one holds the group (a short pause for other
 * writers; docs/measurements/storage.md): 256 faces up to ~800 clusters, then fewer, down to MIN_BATCH.
 */
const WORK_PER_BATCH = 200_000;
const MIN_BATCH = 8;

/** Faces one transaction takes, at most `limit`: each costs one dot product per cluster of the group. */
export function facesPerBatch(limit: number, clusters: number): number {
  return Math.max(MIN_BATCH, Math.min(limit, Math.floor(WORK_PER_BATCH / Math.max(1, clusters))));
}

/** A pending face as both stores read it: its embedding, its item, its object's status, any cluster it is in. */
export interface PendingFace {
  vector: Buffer | null;
  media_id: string | null;
  status: string | null;
  member: string | null;
}

/** Whether a pending face can be clustered: an active object of an item, not yet a member, a vector of `dims`. */
export function isUsableFace(row: PendingFace, dims: number): boolean {
  return (
    row.vector !== null &&
    row.media_id !== null &&
    row.status === 'active' &&
    row.member === null &&
    dims !== 0 &&
    row.vector.byteLength === dims * 4
  );
}

/** A clusters row as both stores load it for an assignment. */
export interface StoredCluster {
  id: string;
  vector_sum: Buffer;
  size: number;
  preview_object_id: string | null;
  preview_similarity: number;
  /** Set by a person (1/true): see ClusterState.pinned. */
  pinned: number | boolean;
}

/** A clusterer holding a group's clusters as stored, with the model's threshold. */
export function loadClusterer(
  modelId: string,
  dims: number,
  loaded: StoredCluster[],
  opts: AssignOptions,
): OnlineClusterer {
  const threshold = faceClusterThreshold(modelId, opts.thresholds, opts.declaredThresholds);
  const clusterer = new OnlineClusterer(Math.max(1, dims), {
    threshold,
    mergeThreshold: threshold + (opts.mergeMargin ?? 0),
  });
  for (const cluster of loaded) {
    clusterer.load({
      id: cluster.id,
      sum: vectorFromBlob(cluster.vector_sum),
      size: cluster.size,
      previewObjectId: cluster.preview_object_id,
      previewSimilarity: cluster.preview_similarity,
      pinned: Boolean(cluster.pinned),
    });
  }
  return clusterer;
}

/**
 * Clusters one usable face: into the cluster a person placed it in (`pin`, table cluster_pins) while that
 * cluster is in the group, so a face moved by hand and clustered again (its item restored) goes back there;
 * else as the clusterer decides.
 */
export function placeFace(clusterer: OnlineClusterer, objectId: string, vector: Float32Array, pin: string | null) {
  return pin !== null && clusterer.has(pin) ? clusterer.join(pin, objectId, vector) : clusterer.add(objectId, vector);
}
