/** The pgvector index's query policy; every field has a default (benchmarks and tests override them). */
export interface PgVectorTuning {
  /**
   * A query with an item filter whose allowed rows (collections, similarity model, items) number at most this many re-ranks them
   * all exactly instead of scanning the HNSW graph: a selective filter would make the graph walk visit many
   * rows for few hits. Counted with a LIMIT of this plus one, so the count costs at most that many index
   * entries.
   */
  exactMax?: number;
  /**
   * hnsw.ef_search floor, raised to the candidates a query wants (at most 1,000). 100 rather than pgvector's
   * 40: on clustered 256-d vectors 40 gave recall@10 0.94–0.96 at 20k, 100 gave 0.99 at about the same
   * latency (docs/measurements/pgvector.md).
   */
  efSearch?: number;
  /** hnsw.max_scan_tuples for the iterative scan of a filtered query (pgvector's default 20,000). */
  maxScanTuples?: number;
}

export const DEFAULT_PG_TUNING: Required<PgVectorTuning> = { exactMax: 2000, efSearch: 100, maxScanTuples: 20_000 };

/** pgvector's bound on hnsw.ef_search. */
export const MAX_EF_SEARCH = 1000;

/**
 * Graph candidates for k hits: the halfvec graph's order is re-sorted by the float32 distance, so a few more
 * than k are fetched to keep the boundary right (halfvec moves a cosine by ~1e-3 at most).
 */
export function annCandidates(k: number, oversample?: number): number {
  const wanted = oversample ? Math.ceil(k * oversample) : Math.max(k + 10, Math.ceil(k * 1.5));
  return Math.max(wanted, k);
}
