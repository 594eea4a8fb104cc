/**
 * The store behind duplicate review (features/duplicates): what a collection's latest duplicates scan found,
 * the groups people said are not duplicates, and the reads a scan needs (items sharing their bytes, the
 * whole-frame vectors of its images). Part of Storage (storage.ts) as `storage.duplicates`.
 */

/** How a group's items are alike: the same bytes (blob key), or the same picture by the embedder's vectors. */
export type DuplicateKind = 'exact' | 'near';

export interface DuplicateGroupRecord {
  kind: DuplicateKind;
  /** The weakest link's cosine (1 for exact copies). */
  similarity: number;
  /** Two or more item ids, as the scan found them (sorted). */
  mediaIds: string[];
}

export interface DuplicateScanRecord {
  collectionId: string;
  /** The embedding model whose vectors were compared; null when none covered the collection (exact copies only). */
  modelId: string | null;
  /** The cosine a near-duplicate pair reached at least (the model's catalog fact); null without a model. */
  threshold: number | null;
  /** Items the scan looked at. */
  items: number;
  scannedAt: string;
}

export interface DuplicateDismissal {
  /** The items of the group dismissed (sorted): a group made only of these does not come back. */
  mediaIds: string[];
  dismissedById: string;
  dismissedAt: string;
}

export interface DuplicateStore {
  /** Live, current images and videos of the collection that share their bytes (blob key), in groups of 2+. */
  exactGroups(collectionId: string): Promise<string[][]>;
  /**
   * One page of the whole-frame vectors of the collection's live, current images under the model, in the order
   * of `key` (the embedding's object id; pass the last row's as `after`, null: from the start), at most
   * `limit`. Walks the model's embeddings of the collection in index order, so a page costs its own rows.
   */
  imageVectors(
    collectionId: string,
    modelId: string,
    after: string | null,
    limit: number,
  ): Promise<Array<{ key: string; mediaId: string; vector: Float32Array }>>;
  /** Replaces the collection's scan and its groups with these, in one transaction. */
  saveScan(scan: DuplicateScanRecord, groups: DuplicateGroupRecord[]): Promise<void>;
  /** The collection's latest scan; null before the first. */
  getScan(collectionId: string): Promise<DuplicateScanRecord | null>;
  /** Its groups in the order saved (the scan's: exact first, then biggest). */
  groups(collectionId: string): Promise<DuplicateGroupRecord[]>;
  /** Records that these items are not duplicates of each other (idempotent for the same set). */
  dismiss(collectionId: string, dismissal: DuplicateDismissal): Promise<void>;
  dismissals(collectionId: string): Promise<DuplicateDismissal[]>;
}
