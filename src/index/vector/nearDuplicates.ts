/**
 * Near-duplicate grouping over a whole collection's vectors: which items are the same picture resized,
 * recompressed, lightly edited or shot in a burst (cosine ≥ the embedder's `nearDuplicate` threshold, a
 * catalog fact). Comparing every pair is quadratic (100k items: 5·10⁹ dot products); this finds the
 * candidate pairs with locality-sensitive hashing instead:
 *
 * 1. Each vector is kept as an int8 copy (a byte a dimension, scaled per vector: cosine error ~3·10⁻⁴, far
 *    below any threshold's margin) and summed into the mean.
 * 2. Its 1-bit code is the sign of (v − mean) per dimension, as the vector index quantises (README.md).
 *    Near duplicates agree on ~90 % of those bits, unrelated pictures on ~50–75 %.
 * 3. `tables` hash tables each key an item by `bits` dimensions of its code chosen at random (bit-sampling
 *    LSH): a pair agreeing on a fraction p of the bits shares a bucket of one table with probability p^bits,
 *    of at least one with 1 − (1 − p^bits)^tables (p = 0.9, 16 bits, 24 tables: 99 %; p = 0.6: 0.07 %).
 * 4. The pairs of a bucket are checked by the Hamming distance of their whole codes first (cheap), then by
 *    their int8 cosine; a pair at or above the threshold joins its items' groups (union–find; a pair already
 *    in one group is not checked again, so a thousand identical copies cost a thousand checks, not 10⁶).
 *
 * Pure; `groupsYielding()` gives the event loop a turn every few milliseconds (the scan job runs in the server
 * process), `groups()` runs through. The caller (the duplicates scan job) feeds it page by page.
 * Figures: docs/measurements/duplicates.md.
 */
import { seededRandom } from '../../platform/random.js';

export interface NearDuplicateOptions {
  /** Hash tables (default 24). */
  tables?: number;
  /** Code bits a table keys on (default 16, at most 30). */
  bits?: number;
  /** A pair's codes may differ in at most this fraction of their bits before its cosine is computed (default 0.3). */
  maxHammingFraction?: number;
  /** Seeds which bits each table samples (default 1): the same input gives the same groups. */
  seed?: number;
}

export interface NearDuplicateGroup {
  /** Indexes of the items, in the order they were added (ascending). */
  members: number[];
  /** The lowest cosine of the pairs that joined the group (the weakest link), 0..1. */
  similarity: number;
}

export interface ScanStats {
  /** Pairs that shared a bucket and were looked at. */
  candidates: number;
  /** Of those, pairs whose cosine was computed (they passed the Hamming check). */
  compared: number;
}

/** Bits set in a 32-bit word. */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

export class NearDuplicateScanner {
  private readonly q: Int8Array[] = [];
  private readonly scales: number[] = [];
  private readonly sum: Float64Array;

  constructor(readonly dims: number) {
    this.sum = new Float64Array(dims);
  }

  get size(): number {
    return this.q.length;
  }

  /** Adds one vector (any length-`dims` vector; normalised here); returns its index. */
  add(vector: Float32Array): number {
    if (vector.length !== this.dims) throw new Error(`vector has ${vector.length} dims, expected ${this.dims}`);
    let n = 0;
    for (let i = 0; i < vector.length; i++) n += vector[i] * vector[i];
    const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
    let max = 0;
    for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i] * inv));
    const scale = max > 0 ? max / 127 : 1;
    const q = new Int8Array(this.dims);
    for (let i = 0; i < vector.length; i++) {
      const v = vector[i] * inv;
      this.sum[i] += v;
      q[i] = Math.round(v / scale);
    }
    this.q.push(q);
    this.scales.push(scale);
    return this.q.length - 1;
  }

  /** Cosine of two added vectors from their int8 copies. */
  similarity(a: number, b: number): number {
    const qa = this.q[a];
    const qb = this.q[b];
    let dot = 0;
    for (let i = 0; i < qa.length; i++) dot += qa[i] * qb[i];
    return dot * this.scales[a] * this.scales[b];
  }

  /** The groups of two or more items whose pairs chain at cosine ≥ threshold; biggest first. Synchronous. */
  groups(threshold: number, options: NearDuplicateOptions = {}, stats?: ScanStats): NearDuplicateGroup[] {
    const work = this.work(threshold, options, stats);
    for (;;) {
      const step = work.next();
      if (step.done) return step.value;
    }
  }

  /**
   * groups(), giving the event loop a turn whenever `sliceMs` of work passed (a 100k-item scan in a server
   * process would otherwise hold it for seconds).
   */
  async groupsYielding(
    threshold: number,
    options: NearDuplicateOptions & { sliceMs?: number; signal?: AbortSignal } = {},
    stats?: ScanStats,
  ): Promise<NearDuplicateGroup[]> {
    const work = this.work(threshold, options, stats);
    const slice = options.sliceMs ?? 20;
    let since = performance.now();
    for (;;) {
      const step = work.next();
      if (step.done) return step.value;
      if (performance.now() - since < slice) continue;
      await new Promise((resolve) => setImmediate(resolve));
      if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
      since = performance.now();
    }
  }

  /** The scan as a generator: it yields at checkpoints (every 1,024 items, every few buckets), returns the groups. */
  private *work(
    threshold: number,
    options: NearDuplicateOptions,
    stats?: ScanStats,
  ): Generator<void, NearDuplicateGroup[], void> {
    const n = this.q.length;
    const tables = options.tables ?? 24;
    const bits = Math.min(30, options.bits ?? 16, this.dims);
    const words = Math.ceil(this.dims / 32);
    const codes = yield* this.codes(words);
    const maxHamming = Math.floor((options.maxHammingFraction ?? 0.3) * this.dims);
    const parent = Int32Array.from({ length: n }, (_, i) => i);
    const weakest = new Float64Array(n).fill(1);
    const find = (i: number): number => {
      while (parent[i] !== i) i = parent[i] = parent[parent[i]];
      return i;
    };
    const random = seededRandom(options.seed ?? 1);
    for (let t = 0; t < tables; t++) {
      const picks = Array.from({ length: bits }, () => Math.floor(random() * this.dims));
      const buckets = new Map<number, number[]>();
      for (let i = 0; i < n; i++) {
        let key = 0;
        for (const d of picks) key = (key << 1) | ((codes[i * words + (d >>> 5)] >>> (d & 31)) & 1);
        const bucket = buckets.get(key);
        if (bucket) bucket.push(i);
        else buckets.set(key, [i]);
        if ((i & 1023) === 1023) yield;
      }
      // A checkpoint every ~20,000 pairs, inside a bucket too: one big bucket (a burst of thousands) is not
      // one slice of the event loop.
      let work = 0;
      for (const bucket of buckets.values()) {
        for (let x = 1; x < bucket.length; x++) {
          for (let y = 0; y < x; y++) {
            const a = bucket[x];
            const b = bucket[y];
            const ra = find(a);
            const rb = find(b);
            if (ra === rb) continue;
            if (stats) stats.candidates++;
            let h = 0;
            for (let w = 0; w < words && h <= maxHamming; w++)
              h += popcount(codes[a * words + w] ^ codes[b * words + w]);
            if (h > maxHamming) continue;
            if (stats) stats.compared++;
            const s = this.similarity(a, b);
            if (s < threshold) continue;
            parent[ra] = rb;
            weakest[rb] = Math.min(weakest[rb], weakest[ra], s);
          }
          work += x;
          if (work > 20_000) {
            work = 0;
            yield;
          }
        }
        if (++work > 20_000) {
          work = 0;
          yield;
        }
      }
    }
    return yield* this.collect(find, weakest);
  }

  private *collect(find: (i: number) => number, weakest: Float64Array): Generator<void, NearDuplicateGroup[], void> {
    const byRoot = new Map<number, number[]>();
    for (let i = 0; i < this.q.length; i++) {
      const r = find(i);
      const list = byRoot.get(r);
      if (list) list.push(i);
      else byRoot.set(r, [i]);
      if ((i & 4095) === 4095) yield;
    }
    const out: NearDuplicateGroup[] = [];
    for (const [root, members] of byRoot)
      if (members.length > 1) out.push({ members, similarity: Math.min(1, weakest[root]) });
    return out.sort((a, b) => b.members.length - a.members.length || a.members[0] - b.members[0]);
  }

  /** Every item's 1-bit code: the sign of (v − mean) per dimension, `words` 32-bit words an item. */
  private *codes(words: number): Generator<void, Uint32Array, void> {
    const n = this.q.length;
    const mean = Float64Array.from(this.sum, (s) => (n ? s / n : 0));
    const codes = new Uint32Array(n * words);
    for (let i = 0; i < n; i++) {
      const q = this.q[i];
      const scale = this.scales[i];
      for (let d = 0; d < this.dims; d++) if (q[d] * scale > mean[d]) codes[i * words + (d >>> 5)] |= 1 << (d & 31);
      if ((i & 1023) === 1023) yield;
    }
    return codes;
  }
}

/** Cosine of all pairs, quadratic: the baseline the bench and tests compare the scanner with. */
export function bruteForceGroups(scanner: NearDuplicateScanner, threshold: number): number[][] {
  const n = scanner.size;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (let a = 1; a < n; a++)
    for (let b = 0; b < a; b++) if (scanner.similarity(a, b) >= threshold) parent[find(a)] = find(b);
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const list = byRoot.get(find(i));
    if (list) list.push(i);
    else byRoot.set(find(i), [i]);
  }
  return [...byRoot.values()].filter((g) => g.length > 1);
}
