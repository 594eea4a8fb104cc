/**
 * An in-memory copy of the 1-bit codes of a vector index, grouped the way the
 * index stores them (chunks of rows of one partition: collection, similarity
 * model, coarse list), and the first pass run over it.
 *
 * Why: sqlite-vec 0.1.9 answers a KNN statement by reading each chunk of the
 * partition (a 96 KB blob for 1,024 rows of 768 bits) and selecting the top k
 * with k passes over it; every statement has a fixed cost before the first row
 * and a search over the nearest coarse lists runs two of them a list (the
 * sample bound, then the KNN). XOR + popcount over the same codes in memory is
 * an order of magnitude faster, and a histogram picks the best candidates in
 * linear time (figures: docs/measurements/vector-index.md). The codes stay in
 * sqlite-vec (the store of record); this is a cache of its chunks, replaced
 * chunk by chunk when a write touches one (see sqlite/vecChunks.ts).
 *
 * Memory: dims/8 bytes plus 8 a row (768-d: ~104 MB at 1M rows).
 */

import { jsHamming, type HammingKernel } from './hamming.js';
import { simdHamming } from './hammingSimd.js';

/** One chunk of the index as stored: its partition and its live rows. */
export interface CodeChunk {
  id: number;
  ds: string;
  sm: string;
  /** Coarse list (0 without lists). */
  list: number;
  /** Row ids of the live slots. */
  rowids: Float64Array;
  /** Their codes, dims/32 words (or dims/8 bytes padded to words) a row, in the same order. */
  codes: Uint32Array;
}

export interface CodeCandidate {
  rowid: number;
  distance: number;
}

/** What one scan reads: a collection's partition for a similarity model, one list or (null) all of them. */
export interface CodePart {
  ds: string;
  sm: string;
  list: number | null;
}

/** Distance marking a row that is not allowed (beyond any real one). */
const EXCLUDED = 0xffff;

/** The key of a partition group (collection + similarity model). */
export const groupKey = (ds: string, sm: string) => `${ds}\u0000${sm}`;

/**
 * Packs a code (dims/8 bytes, least significant bit first: the layout of
 * quantizeBits and vec0's bit[N]) into 32-bit words, zero-padded.
 */
export function codeWords(bytes: Uint8Array, words: number, out = new Uint32Array(words), at = 0): Uint32Array {
  for (let w = 0; w < words; w++) {
    const b = w * 4;
    out[at + w] =
      ((bytes[b] ?? 0) | ((bytes[b + 1] ?? 0) << 8) | ((bytes[b + 2] ?? 0) << 16) | ((bytes[b + 3] ?? 0) << 24)) >>> 0;
  }
  return out;
}

/** The codes of one index generation, chunk by chunk, and the Hamming first pass over them. */
export class BitCodeMirror {
  /** 32-bit words a code. */
  readonly words: number;
  private chunks = new Map<number, CodeChunk>();
  /** Chunk ids by partition group (collection + similarity model). */
  private groups = new Map<string, Set<number>>();
  /** Live rows by group. */
  private counts = new Map<string, number>();
  private distances = new Uint16Array(0);
  /** WebAssembly SIMD counting when the code size and runtime allow (several times faster), else JavaScript's. */
  private readonly kernel: HammingKernel;

  /** `simd: false` counts in JavaScript always (the bench's baseline). */
  constructor(
    readonly dims: number,
    options: { simd?: boolean } = {},
  ) {
    this.words = Math.ceil(dims / 32);
    this.kernel = (options.simd === false ? null : simdHamming(this.words)) ?? jsHamming(this.words);
  }

  /** Replaces (or adds) a chunk. */
  put(chunk: CodeChunk): void {
    this.drop(chunk.id);
    this.chunks.set(chunk.id, chunk);
    const key = groupKey(chunk.ds, chunk.sm);
    let set = this.groups.get(key);
    if (!set) this.groups.set(key, (set = new Set()));
    set.add(chunk.id);
    this.counts.set(key, (this.counts.get(key) ?? 0) + chunk.rowids.length);
  }

  /** Forgets a chunk (gone from the index). */
  drop(id: number): void {
    const old = this.chunks.get(id);
    if (!old) return;
    this.chunks.delete(id);
    const key = groupKey(old.ds, old.sm);
    this.groups.get(key)?.delete(id);
    this.counts.set(key, (this.counts.get(key) ?? 0) - old.rowids.length);
  }

  /** Forgets every chunk of a group (to be loaded again). */
  dropGroup(ds: string, sm: string): void {
    for (const id of [...(this.groups.get(groupKey(ds, sm)) ?? [])]) this.drop(id);
    this.groups.delete(groupKey(ds, sm));
    this.counts.delete(groupKey(ds, sm));
  }

  /** Forgets everything. */
  clear(): void {
    this.chunks.clear();
    this.groups.clear();
    this.counts.clear();
  }

  /** Live rows held for a group (0 when none). */
  rows(ds: string, sm: string): number {
    return this.counts.get(groupKey(ds, sm)) ?? 0;
  }

  get size(): { chunks: number; rows: number; bytes: number } {
    let rows = 0;
    for (const n of this.counts.values()) rows += n;
    return { chunks: this.chunks.size, rows, bytes: rows * (this.words * 4 + 8) };
  }

  /**
   * The `want` rows nearest the query code by Hamming distance over the parts
   * (only rows whose bit is set in `allowed`, indexed by rowid, when given),
   * nearest first, ties by rowid: the order of the vec0 first pass.
   */
  scan(parts: CodePart[], code: Uint8Array, want: number, allowed: Uint8Array | null = null): CodeCandidate[] {
    const W = this.words;
    const q = codeWords(code, W);
    const chunks: CodeChunk[] = [];
    let total = 0;
    for (const p of parts) {
      for (const id of this.groups.get(groupKey(p.ds, p.sm)) ?? []) {
        const c = this.chunks.get(id)!;
        if (p.list !== null && c.list !== p.list) continue;
        chunks.push(c);
        total += c.rowids.length;
      }
    }
    if (this.distances.length < total) this.distances = new Uint16Array(total);
    const dist = this.distances;
    const histogram = new Uint32Array(W * 32 + 1);
    let n = 0;
    for (const c of chunks) {
      const from = n;
      this.kernel.distances(c.codes, c.rowids.length, q, dist, n);
      n += c.rowids.length;
      // Rows not allowed get a distance past every real one.
      if (allowed !== null) {
        const rowids = c.rowids;
        for (let r = 0; r < rowids.length; r++) {
          const rowid = rowids[r];
          if (!((allowed[rowid >>> 3] ?? 0) & (1 << (rowid & 7)))) dist[from + r] = EXCLUDED;
        }
      }
    }
    for (let i = 0; i < n; i++) if (dist[i] !== EXCLUDED) histogram[dist[i]]++;
    // The distance at which `want` rows are reached, then those rows, sorted.
    let bound = 0;
    for (let seen = 0; bound < histogram.length; bound++) {
      seen += histogram[bound];
      if (seen >= want) break;
    }
    const out: CodeCandidate[] = [];
    let i = 0;
    for (const c of chunks) {
      for (let r = 0; r < c.rowids.length; r++, i++)
        if (dist[i] <= bound) out.push({ rowid: c.rowids[r], distance: dist[i] });
    }
    out.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
    return out.length > want ? out.slice(0, want) : out;
  }
}

/** A bitmap of rowids (bit r set for each allowed r), for scan's `allowed`. */
export function rowidBitmap(rowids: number[]): Uint8Array {
  let max = 0;
  for (const r of rowids) if (r > max) max = r;
  const out = new Uint8Array((max >>> 3) + 1);
  for (const r of rowids) out[r >>> 3] |= 1 << (r & 7);
  return out;
}
