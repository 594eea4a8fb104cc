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
  /** The person's name (null: not named yet), whether hidden from the People list, whether a person touched it. */
  name: string | null;
  hidden: boolean;
  pinned: boolean;
  /** The face a person chose to show (null: the preview face is shown); previewObjectId is it when set and still a member. */
  coverObjectId: string | null;
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
  /** Clusters of a collection, named first, then biggest first (ties by id); hidden ones only when asked. */
  listClusters(collectionId: string, opts?: ClusterListOptions): Promise<ClusterSummary[]>;
  countClusters(collectionId: string, opts?: Omit<ClusterListOptions, 'limit' | 'offset'>): Promise<number>;
  getCluster(id: string): Promise<(ClusterSummary & { collectionId: string }) | null>;
  /** Distinct ids of the items holding faces of the cluster (any status; browse filters). */
  mediaIdsInCluster(clusterId: string): Promise<string[]>;
  /** The cluster of a face, or null while it is pending (or not a clustered face). */
  clusterOfObject(objectId: string): Promise<string | null>;
  /** A cluster's faces, most like its centroid first: the person view's face strip. */
  clusterFaces(clusterId: string, page: { limit: number; offset: number }): Promise<ClusterFace[]>;
  /** The unit centroids of a collection's visible clusters, the biggest `limit` (suggestions compare them). */
  clusterCentroids(collectionId: string, limit: number): Promise<ClusterCentroid[]>;
  /**
   * A person's edits of one cluster (each pins it): a name (null clears it; the text index follows), hidden
   * or not, a cover face (null: the preview face). False when there is no such cluster.
   */
  updateCluster(id: string, patch: ClusterPatch): Promise<boolean>;
  /**
   * Merges clusters of one (collection, model) into `into`: their faces and pins move, sums add up, they are
   * deleted; `into` is pinned and takes the first name among them when it has none. The caller checks that
   * they share a collection and model.
   */
  mergeClusters(into: string, from: string[]): Promise<ClusterSummary>;
  /**
   * Moves faces of cluster `from` into cluster `to` (same collection and model), or into a new cluster when
   * `to` is null ("not this person"): both are recomputed and pinned, the faces pinned where they went (so
   * the clusterer never puts them back); `from` goes when it empties. Faces not in `from` are left alone.
   * The cluster they went to, and how many moved.
   */
  moveFaces(from: string, objectIds: string[], to: string | null): Promise<{ clusterId: string; moved: number }>;
}

export interface ClusterListOptions {
  limit?: number;
  offset?: number;
  minSize?: number;
  modelId?: string;
  /** Hidden clusters too (default false). */
  includeHidden?: boolean;
}

export interface ClusterPatch {
  name?: string | null;
  hidden?: boolean;
  coverObjectId?: string | null;
}

export interface ClusterFace {
  objectId: string;
  mediaId: string;
  blobKey: string | null;
  /** Placed here by a person. */
  manual: boolean;
}

export interface ClusterCentroid {
  id: string;
  modelId: string;
  size: number;
  name: string | null;
  centroid: Float32Array;
}
