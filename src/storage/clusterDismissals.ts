/**
 * People's "not the same person" decisions on the merge suggestions (features/faces/suggestions.ts): a pair
 * of face clusters of a collection, kept so that the pair is never suggested again. Both engines' stores
 * (sqlite/clusterDismissals.ts, postgres/clusterDismissals.ts) provide it as Storage.clusterDismissals.
 */
export interface ClusterDismissalStore {
  /** Records that clusters `a` and `b` are not the same person (either order; idempotent). */
  dismiss(collectionId: string, a: string, b: string, userId: string): Promise<void>;
  /** The collection's dismissed pairs, each as `[smaller id, larger id]`. */
  list(collectionId: string): Promise<Array<[string, string]>>;
}

/** A pair in its stored order (smaller id first). */
export const orderedPair = (a: string, b: string): [string, string] => (a < b ? [a, b] : [b, a]);

// Storage.clusterDismissals is declared here, beside its interface (storage.ts is at the 400-line limit).
declare module './storage.js' {
  interface Storage {
    /** People's dismissed merge suggestions ("not the same person"). */
    clusterDismissals: ClusterDismissalStore;
  }
}
