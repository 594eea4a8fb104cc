/**
 * Vector similarity search over object (and frame) embeddings: the query and
 * result shapes, the index interface and the engine-independent pieces (the
 * quantisers, the in-memory int8 cache, the tuning constants and why they are
 * what they are). The SQLite implementation is src/storage/sqlite/vectorIndex.ts.
 *
 * How a query runs:
 * 1. The query vector is L2-normalised and quantised to one bit per dimension
 *    (sign of v − centre, the centre being the model's mean vector).
 * 2. Coarse lists (IVF, src/search/ivf.ts): a collection past IVF_MIN_ROWS
 *    vectors is split at rebuild into ~√rows/8 lists by k-means; the query
 *    ranks them by centroid similarity and the first pass reads only the
 *    nearest ones, until they hold max(rows/8, 16 × candidates, 16k) vectors
 *    (1M: ~16 of 125 lists, 1/8 of the codes). Smaller collections, and every
 *    collection of a generation made before IVF, are one list: read whole.
 *    Lists are trained and assigned on the vector minus the model's mean (see
 *    ivf.ts `residual`), which keeps them balanced (1M: 5k–13k rows a list).
 * 3. First pass: Hamming-distance KNN over the 1-bit codes of those lists of
 *    each collection asked for (a sqlite-vec vec0 partition per collection,
 *    similarity model and list: other collections and models are never read),
 *    run over an in-memory copy of the codes once it is loaded
 *    (src/search/bitCodeMirror.ts), through vec0's KNN statements until then,
 *    and, for a filtered query, only over the allowed rows (`rowid IN (...)`,
 *    also inside the scan, over every list, so a filtered query never comes
 *    back short; an over-fetching post-filter probes the nearest lists and
 *    falls back to all of them when those run out of allowed rows). It
 *    keeps candidatesFor(k) candidates; through vec0, a bound on the Hamming
 *    distance read off a 1/64 sample of the codes keeps that large k cheap.
 * 4. Re-ranking: int8 dot products of the candidates with the query, from an
 *    in-memory cache of per-vector-scaled int8 copies (768 B a vector). The
 *    cache is what keeps a query off the disk: a 3 KB float row read cold costs
 *    ~100 µs on this machine (idle page cache is reclaimed after a minute), so
 *    rescoring 1,000 candidates from disk would cost 100 ms.
 * 5. Exact rescoring of the best few (exactRescoreFor(k)) from the float32
 *    vectors: L2 via sqlite-vec's AVX `vec_distance_l2`, cosine = 1 − d²/2 on
 *    unit vectors. The best `k` come back, best first.
 * A filtered query whose allowed rows are few skips the first pass and
 * re-ranks all of them: exact (exactMaxVectors).
 */
import type { SimilarityModel } from '../../storage/types.js';

export type { SimilarityModel };
export const SIMILARITY_MODELS: readonly SimilarityModel[] = ['objects', 'faces', 'shoeprints'];

/** One embedding to index (what `object_embeddings` holds, plus the frame for results). */
export interface VectorRow {
  objectId: string;
  /** The embedding model (name, weights, dtype): vectors of different models never share an index. */
  modelId: string;
  similarityModel: SimilarityModel;
  mediaId: string;
  datasetId: string;
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
  datasetIds: string[];
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
   * Default: the probe policy of src/search/ivf.ts; Infinity: every list (the
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
  datasetId: string;
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
  /** What the source vectors are (object_embeddings.vector), and the copies kept: 1-bit codes scanned, int8 re-ranked. */
  sourceDtype: 'float32';
  indexDtype: 'bit';
  rerankDtype: 'int8';
  /** The quantiser and whether it subtracts the model's mean (a better split of the bits). */
  quantizer: string;
  centered: boolean;
  /** 'live' answers queries; 'building' is a rebuild in progress (kept in step, swapped in when done). */
  state: 'live' | 'building';
  rows: number;
  /** vec0 slots (chunks × chunk size); slots − rows are holes left by deletes (sqlite-vec 0.1.9 does not reuse them) or unfilled tails. */
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
  coverage(modelId: string, datasetIds: string[], similarityModel?: SimilarityModel): Promise<VectorCoverage>;
  /** Per generation (live, and building while a rebuild runs); all models when none is named. */
  stats(modelId?: string): Promise<VectorIndexStats[]>;
  /** Drops every generation of the model (after a switch to a new model). */
  dropModel(modelId: string): Promise<void>;
  /** Loads the int8 copies into memory (in batches; queries also fill it as they go). Call at start-up. */
  warm(modelId?: string): Promise<{ rows: number }>;
  /** Models with stored embeddings but no index (e.g. a database from before the index): rebuild() them. */
  unindexedModels(): Promise<string[]>;
}

// ---------------------------------------------------------------- tuning

/** vec0's limit on k. */
export const MAX_K = 4096;

/**
 * First-pass candidates re-ranked: max(k × MIN_OVERSAMPLE, MIN_CANDIDATES), at
 * most MAX_K. Measured (npm run bench -- search, the candidates → recall
 * notes), recall@10 at 160 / 320 / 640 / 1,024 candidates: hard clustered set
 * (~1,000 near-equidistant vectors a cluster) 0.64 / 0.83 / 0.99 / 1.00 at 1M;
 * random unit vectors with random queries 0.38 / 0.52 / 0.61 / 0.66 at 1M
 * (0.98 at 10k): their true neighbours barely stand out of the bulk (cosine
 * ~0.15 against 0 ± 0.04), which one bit a dimension cannot resolve. Re-ranking
 * from memory costs ~1.5 µs a candidate and the bounded first pass hardly
 * depends on the number, so the floor is cheap.
 */
export const MIN_CANDIDATES = 1024;
export const MIN_OVERSAMPLE = 8;

/*
 * Coarse lists (IVF) decide how many codes the first pass reads in a big
 * collection; their tuning and figures are in src/search/ivf.ts (clustered 1M:
 * p50 40 ms vs 130 ms for the whole partition, recall@10 0.970).
 */

/** The number of first-pass candidates for k hits (`oversample` overrides the policy: k × oversample). */
export function candidatesFor(k: number, oversample?: number): number {
  const want = oversample !== undefined ? Math.ceil(k * oversample) : Math.max(k * MIN_OVERSAMPLE, MIN_CANDIDATES);
  return Math.min(MAX_K, Math.max(k, want));
}

/**
 * Rows rescored exactly (float32) after the int8 re-rank: the best min(k, 100)
 * plus a margin for int8's error on the cosine (σ ≈ 3·10⁻⁴ at 768-d). Hits past
 * the 100th keep their int8 similarity: each exact rescore is a row read that
 * is ~100 µs when the page is cold, and that precision does not move a rank there.
 */
export const EXACT_TOP = 100;
export const exactRescoreFor = (k: number): number => {
  const n = Math.min(k, EXACT_TOP);
  return n + Math.max(8, Math.ceil(n / 2));
};

// ---------------------------------------------------------------- vectors

/** A unit-length copy (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const out = new Float32Array(v.length);
  if (s === 0) return out;
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  return out;
}

/**
 * The 1-bit code: bit i is set when v[i] > centre[i], packed least significant
 * bit first (the layout of sqlite-vec's `vec_quantize_binary` and `bit[N]`
 * columns). dims must be a multiple of 8.
 */
export function quantizeBits(
  v: Float32Array,
  center: Float32Array | null,
  out: Uint8Array = new Uint8Array(v.length >> 3),
): Uint8Array {
  out.fill(0);
  for (let i = 0; i < v.length; i++) {
    if (v[i] > (center ? center[i] : 0)) out[i >> 3] |= 1 << (i & 7);
  }
  return out;
}

/**
 * The int8 copy: 4 bytes of float32 scale (little-endian), then round(v[i] / scale)
 * with scale = max|v| / 127. v ≈ scale × q; the cosine error has σ ≈ 3·10⁻⁴ on unit 768-d vectors.
 */
export function quantizeInt8(v: Float32Array): Buffer {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]));
  const scale = max === 0 ? 1 : max / 127;
  const out = Buffer.allocUnsafe(4 + v.length);
  out.writeFloatLE(scale, 0);
  const inv = 1 / scale;
  for (let i = 0; i < v.length; i++) out.writeInt8(Math.max(-127, Math.min(127, Math.round(v[i] * inv))), 4 + i);
  return out;
}

/** Cosine similarity of two unit vectors from their L2 distance. */
export const cosineFromL2 = (d: number): number => 1 - (d * d) / 2;

/** The float32 bytes of a vector (a view, no copy). */
export const vectorBytes = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** A Float32Array over a blob of float32 little-endian bytes (copies when unaligned). */
export function vectorFromBytes(b: Uint8Array): Float32Array {
  if (b.byteOffset % 4 === 0) return new Float32Array(b.buffer, b.byteOffset, b.byteLength >> 2);
  return new Float32Array(new Uint8Array(b).buffer.slice(0));
}

/** recall@k of `got` against `truth` (ids), as a fraction of min(k, truth.length). */
export function recallAt(k: number, got: string[], truth: string[]): number {
  const want = new Set(truth.slice(0, k));
  if (want.size === 0) return 1;
  let hit = 0;
  for (const id of got.slice(0, k)) if (want.has(id)) hit++;
  return hit / want.size;
}

// ---------------------------------------------------------------- the int8 cache

const SLAB_ROWS = 1024;
const SLAB_SHIFT = 10;

interface Slab {
  q: Int8Array;
  /** NaN: row not cached. */
  scale: Float32Array;
  count: number;
  /** Tick of its last use (the least recently used slab goes first). */
  used: number;
}

/**
 * The int8 copies of vectors in memory, by (generation, rowid). A rowid's
 * vector never changes (a replaced vector gets a new rowid), so an entry is
 * never stale: at worst it belongs to a deleted row and is never asked for.
 * That makes the cache safe with writes rolled back by an outer transaction.
 * Held in slabs of 1,024 rows, an array of them per generation (a lookup is an
 * index, not a hash: the re-rank asks ~1,000 times a query); past the byte
 * budget the least recently used slabs go.
 */
export class Int8Cache {
  private gens = new Map<number, Array<Slab | undefined>>();
  private bytes = 0;
  private slabCount = 0;
  private tick = 0;

  constructor(private readonly budgetBytes: number) {}

  private slabBytes(dims: number) {
    return SLAB_ROWS * (dims + 4);
  }

  private slabOf(gen: number, rowid: number): Slab | undefined {
    return this.gens.get(gen)?.[rowid >>> SLAB_SHIFT];
  }

  /** The cached int8 dot product of row `rowid` with `y` (a unit float query), or null when not cached. */
  dot(gen: number, rowid: number, y: Float32Array): number | null {
    const slab = this.slabOf(gen, rowid);
    if (!slab) return null;
    const i = rowid & (SLAB_ROWS - 1);
    const scale = slab.scale[i];
    if (Number.isNaN(scale)) return null;
    const d = y.length;
    const q = slab.q;
    const off = i * d;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j + 4 <= d; j += 4) {
      s0 += q[off + j] * y[j];
      s1 += q[off + j + 1] * y[j + 1];
      s2 += q[off + j + 2] * y[j + 2];
      s3 += q[off + j + 3] * y[j + 3];
    }
    for (; j < d; j++) s0 += q[off + j] * y[j];
    return (s0 + s1 + s2 + s3) * scale;
  }

  /** Marks the slab of `rowid` as just used (once per slab and query is enough). */
  touch(gen: number, rowid: number): void {
    const slab = this.slabOf(gen, rowid);
    if (slab) slab.used = ++this.tick;
  }

  private evictOne(): void {
    let oldest: { gen: number; index: number; slab: Slab } | null = null;
    for (const [gen, slabs] of this.gens) {
      slabs.forEach((slab, index) => {
        if (slab && (!oldest || slab.used < oldest.slab.used)) oldest = { gen, index, slab };
      });
    }
    if (!oldest) return;
    const { gen, index, slab } = oldest as { gen: number; index: number; slab: Slab };
    this.gens.get(gen)![index] = undefined;
    this.bytes -= slab.q.byteLength + slab.scale.byteLength;
    this.slabCount--;
  }

  /** Stores a row's int8 copy (the quantizeInt8 layout). */
  put(gen: number, rowid: number, blob: Uint8Array): void {
    const dims = blob.byteLength - 4;
    let slabs = this.gens.get(gen);
    if (!slabs) this.gens.set(gen, (slabs = []));
    const index = rowid >>> SLAB_SHIFT;
    let slab = slabs[index];
    if (!slab) {
      if (this.budgetBytes < this.slabBytes(dims)) return;
      while (this.bytes + this.slabBytes(dims) > this.budgetBytes && this.slabCount) this.evictOne();
      slab = {
        q: new Int8Array(SLAB_ROWS * dims),
        scale: new Float32Array(SLAB_ROWS).fill(NaN),
        count: 0,
        used: ++this.tick,
      };
      slabs[index] = slab;
      this.bytes += slab.q.byteLength + slab.scale.byteLength;
      this.slabCount++;
    }
    const i = rowid & (SLAB_ROWS - 1);
    if (Number.isNaN(slab.scale[i])) slab.count++;
    slab.scale[i] = new DataView(blob.buffer, blob.byteOffset, 4).getFloat32(0, true);
    slab.q.set(new Int8Array(blob.buffer, blob.byteOffset + 4, dims), i * dims);
  }

  /** Forgets a generation (dropped). */
  dropGeneration(gen: number): void {
    for (const slab of this.gens.get(gen) ?? []) {
      if (!slab) continue;
      this.bytes -= slab.q.byteLength + slab.scale.byteLength;
      this.slabCount--;
    }
    this.gens.delete(gen);
  }

  rows(gen: number): number {
    let n = 0;
    for (const slab of this.gens.get(gen) ?? []) if (slab) n += slab.count;
    return n;
  }

  get size(): { bytes: number; slabs: number } {
    return { bytes: this.bytes, slabs: this.slabCount };
  }
}
