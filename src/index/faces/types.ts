/**
 * The face cluster index as the storage layer offers it (SQLite:
 * src/storage/sqlite/clusterStore.ts): clusters per (collection, face model),
 * filled by the `cluster-faces` job (src/features/faces).
 */
import type { ThresholdTable } from './thresholds.js';

export interface ClusterSummary {
  id: string;
  modelId: string;
  /** Faces in the cluster. */
  size: number;
  /** Live, current items holding at least one of its faces (what browse by clusterId lists). */
  mediaCount: number;
  /** The face shown for the cluster (the member most like the centroid), its crop and where it is. */
  previewObjectId: string | null;
  previewBlobKey: string | null;
  previewMediaId: string | null;
  previewFrameId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AssignOptions {
  /** Join thresholds by model-id prefix that override the declared ones (the FACE_CLUSTER_THRESHOLDS setting). */
  thresholds?: ThresholdTable;
  /** The join thresholds the face models declare, by model-id prefix (see faceClusterThreshold). */
  declaredThresholds?: ThresholdTable;
  /** Merge threshold = join threshold + this (default 0; never below the join threshold). */
  mergeMargin?: number;
  /** Faces per write transaction (default 256): the write lock is held that long. */
  batchSize?: number;
  /** Checked between transactions; an aborted run stops after the current one (nothing half-done). */
  signal?: AbortSignal;
}

export interface AssignResult {
  /** Faces given a cluster. */
  assigned: number;
  /** Clusters started. */
  created: number;
  /** Clusters merged away into others. */
  merged: number;
  /** Pending faces skipped because their object or embedding was gone. */
  skipped: number;
  /** Clusters recomputed after some of their faces were deleted, and those dropped as empty. */
  refreshed: number;
  dropped: number;
  /** Whether faces are still pending in the scope (the limit was reached or the run was aborted). */
  more: boolean;
}

/**
 * Face clusters in storage. Membership follows the faces: deleting a face (its
 * object deleted or its item deleted, or reprocessing replacing it) takes it
 * out of its cluster at once (size and counts follow in the same transaction);
 * the centroid and preview of such a cluster are recomputed by the next
 * assignPending, which also drops clusters left empty.
 */
export interface ClusterStore {
  /**
   * Clusters the face embeddings not yet assigned, oldest first, at most
   * `limit` of them, in the collection (null: every collection), and first
   * brings clusters that lost faces up to date. Idempotent, and safe to run
   * concurrently with itself (each batch is one write transaction).
   */
  assignPending(collectionId: string | null, limit: number, opts?: AssignOptions): Promise<AssignResult>;
  /** Faces waiting to be clustered in the collection (null: everywhere). */
  pendingCount(collectionId: string | null): Promise<number>;
  /** Clusters of a collection, biggest first (ties by id). */
  listClusters(
    collectionId: string,
    opts?: { limit?: number; offset?: number; minSize?: number; modelId?: string },
  ): Promise<ClusterSummary[]>;
  countClusters(collectionId: string, opts?: { minSize?: number; modelId?: string }): Promise<number>;
  getCluster(id: string): Promise<(ClusterSummary & { collectionId: string }) | null>;
  /** Distinct ids of the items holding faces of the cluster (any status; browse filters). */
  mediaIdsInCluster(clusterId: string): Promise<string[]>;
  /** The cluster of a face, or null while it is pending (or not a clustered face). */
  clusterOfObject(objectId: string): Promise<string | null>;
}
