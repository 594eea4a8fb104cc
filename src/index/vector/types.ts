/**
 * The vector index's interface: what it stores (VectorRow), how it is asked
 * (VectorQuery) and what it answers (hits, how a query ran, coverage, stats).
 * How a query runs is in README.md beside this file; the SQLite
 * implementation is sqlite/sqliteVectorIndex.ts.
 */

/** Which kind of thing an embedding describes; vectors of different similarity models are never compared. */
export type SimilarityModel = 'objects' | 'faces' | 'shoeprints';
export const SIMILARITY_MODELS: readonly SimilarityModel[] = ['objects', 'faces', 'shoeprints'];

/** One embedding to index (what `object_embeddings` holds, plus the frame for results). */
export interface VectorRow {
  objectId: string;
  /** The embedding model (name, weights, dtype): vectors of different models never share an index. */
  modelId: string;
  similarityModel: SimilarityModel;
  mediaId: string;
  collectionId: string;
  /** The frame the object is on; returned with hits. */
  frameId?: string | null;
  /** float32, L2-normalised (normalised again here to be safe). Its length fixes the index's dims. */
  vector: Float32Array;
}

export interface VectorQuery {
  modelId: string;
  similarityModel: SimilarityModel;
  /** Any length-`dims` vector; normalised here. */
  vector: Float32Array;
  /** The collections to search (one vec0 partition each). Empty: no results. */
  collectionIds: string[];
  /** Most hits returned (1..MAX_K). */
  k: number;
  /**
   * Restricts hits to these items (what the browse filters let through).
   * null/absent: no restriction. The restriction applies inside the scan, so
   * `k` hits come back whenever at least `k` vectors of these items exist.
   */
  mediaIds?: string[] | null;
  /** First-pass candidates per hit (default: candidatesFor(k)). For benchmarks and tuning. */
  oversample?: number;
  /** Force a strategy (benchmarks and tests): 'ann' always runs the quantised first pass; 'exact' re-ranks every allowed vector. */
  strategy?: 'auto' | 'ann' | 'exact';
  /**
   * Coarse lists scanned per collection that has them (benchmarks, tuning).
   * Default: the probe policy of ivf.ts; Infinity: every list (the
   * full-partition scan of collections without lists).
   */
  probe?: number;
  /**
   * How many of the best hits are rescored from their float32 vectors
   * (default exactRescoreFor(k)); the others keep their int8 similarity
   * (cosine error σ ≈ 3·10⁻⁴). In a library bigger than the OS keeps cached,
   * each exact rescore is a disk read: a caller that shows only the best few
   * (organization search) rescores only those.
   */
  exactTop?: number;
}

export interface VectorHit {
  objectId: string;
  mediaId: string;
  frameId: string | null;
  collectionId: string;
  /**
   * Cosine similarity, −1..1: from the exact float32 vectors for the best 100
   * hits (EXACT_TOP, or the query's exactTop), from the int8 copies (error
   * σ ≈ 3·10⁻⁴) past them.
   */
  similarity: number;
}

export interface VectorSearchInfo {
  /** How the query ran: 'ann' (bit first pass, int8 re-rank, exact rescoring), 'exact' (every allowed vector re-ranked), 'empty'. */
  strategy: 'ann' | 'exact' | 'empty';
  /** Where the bit first pass ran: over the in-memory copy of the codes, through sqlite-vec's KNN statements, or not at all (exact). */
  firstPass: 'memory' | 'sqlite' | 'none';
  /** Vectors re-ranked with int8. */
  candidates: number;
  /** Of those, how many were not in the in-memory cache (read from the database). */
  cacheMisses: number;
  /** vec0 KNN statements run (partitions × retries). */
  knnQueries: number;
  /** The Hamming bound used to cut the first pass (null: none). */
  threshold: number | null;
  /** How mediaIds applied: not given, inside the scan (rowid IN / the exact set), or after an over-fetching scan. */
  filter: 'none' | 'inside' | 'post';
  /** Coarse lists the (last) first pass scanned; 0 when it scanned whole partitions. */
  lists: number;
  /** Rows of the partitions or lists the (last) first pass scanned. */
  scanned: number;
}

export interface VectorCoverage {
  modelId: string;
  /** Vectors of this model in the index for these collections. */
  indexed: number;
  /** Active objects with a similarity model (the ones that should have a vector) in active, current items of these collections. */
  objects: number;
  /** indexed / objects, 0..1 (1 when there are no objects). */
  fraction: number;
  /** Whether the model's index is complete (built, not being built for the first time). */
  live: boolean;
}

export interface VectorIndexStats {
  modelId: string;
  dims: number;
  /**
   * What the source vectors are (object_embeddings.vector), and the copies kept: SQLite scans 1-bit codes and
   * re-ranks int8; pgvector walks an HNSW graph of halfvec copies and re-ranks the float32 vectors.
   */
  sourceDtype: 'float32';
  indexDtype: 'bit' | 'halfvec';
  rerankDtype: 'int8' | 'float32';
  /** The quantiser and whether it subtracts the model's mean (a better split of the bits). */
  quantizer: string;
  centered: boolean;
  /** 'live' answers queries; 'building' is a rebuild in progress (kept in step, swapped in when done). */
  state: 'live' | 'building';
  rows: number;
  /**
   * vec0 slots (chunks × chunk size); slots − rows are holes left by deletes (sqlite-vec 0.1.9 does not reuse
   * them) or unfilled tails.
   */
  slots: number;
  /** Holes a rebuild would reclaim (approximate). */
  reclaimable: number;
  /** True when a rebuild is worth it: many holes, or a big index quantised without its mean. */
  needsRebuild: boolean;
  /** Rows of this generation held in the in-memory int8 cache. */
  cachedRows: number;
  /** Coarse lists (IVF) over all its collections; 0: every collection is scanned whole. */
  lists: number;
  /** Rows of collections big enough for coarse lists that have none (or have outgrown theirs): a rebuild partitions them. */
  unlistedRows: number;
}

export interface RebuildOptions {
  /** Rows per write transaction (default 5,000); the event loop gets a turn between batches. */
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (done: number) => void;
}

/**
 * The vector index. Writes are atomic on their own; the SQLite implementation
 * also exposes synchronous twins for use inside another store's transaction.
 */
export interface VectorIndex {
  /** Best first; at most `k`. Unknown model (nothing indexed): []. */
  search(query: VectorQuery): Promise<VectorHit[]>;
  /** Adds or replaces the vectors (by objectId and modelId). Creates the model's index on first use. */
  upsert(rows: VectorRow[]): Promise<void>;
  /** Removes these objects' vectors under every model. */
  remove(objectIds: string[]): Promise<void>;
  /** Removes every vector of these items under every model. */
  removeMedia(mediaIds: string[]): Promise<void>;
  /**
   * Rebuilds the model's index from object_embeddings (active objects of active
   * items) in batches, while the old one keeps answering and both are kept in
   * step; swaps at the end and drops the old one. Recomputes the centre and
   * reclaims the space deletes left. Returns the rows indexed.
   */
  rebuild(modelId: string, options?: RebuildOptions): Promise<{ rows: number }>;
  /** How far the model's vectors cover the collections' objects: switch models when it reaches 1. */
  coverage(modelId: string, collectionIds: string[], similarityModel?: SimilarityModel): Promise<VectorCoverage>;
  /** Per generation (live, and building while a rebuild runs); all models when none is named. */
  stats(modelId?: string): Promise<VectorIndexStats[]>;
  /** Drops every generation of the model (after a switch to a new model). */
  dropModel(modelId: string): Promise<void>;
  /** Loads the int8 copies into memory (in batches; queries also fill it as they go). Call at start-up. */
  warm(modelId?: string): Promise<{ rows: number }>;
  /** Models with stored embeddings but no index (e.g. a database from before the index): rebuild() them. */
  unindexedModels(): Promise<string[]>;
}

/**
 * The index's writes, synchronous: another store calls them inside the
 * transaction that writes object_embeddings or deletes items, so the index
 * commits or rolls back with it (see src/storage/indexWriters.ts).
 */
export interface VectorIndexWriter {
  upsert(rows: VectorRow[]): void;
  remove(objectIds: string[]): void;
  removeMedia(mediaIds: string[]): void;
}
