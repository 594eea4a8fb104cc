/**
 * Face clustering: groups the face embeddings of a collection into identities,
 * incrementally, as new faces arrive (the `cluster-faces` background job).
 *
 * Scope. Clusters are per collection (dataset) and per embedding model id: a
 * face is only ever compared with faces of the same collection embedded by the
 * same model (`sface:<sha12>`). Per collection because browse by `clusterId`,
 * the clusters listing and access control are all per collection; linking
 * identities across an organization's collections can be built on top later
 * (clusters of cluster centroids) without touching this.
 *
 * Algorithm: online average-linkage clustering with running sums.
 *   - Each cluster keeps the sum S of its members' unit vectors and its size
 *     n; its centroid is S re-normalised (the direction of the mean).
 *   - A new face v scores, against each cluster, its MEAN cosine with the
 *     cluster's members: v·S/n = (v·centroid)·|S|/n, one dot product per
 *     cluster. It joins the best-scoring cluster when that mean is ≥
 *     `threshold`, else it starts a new cluster.
 *   - After a join, two clusters whose members' mean cross-cosine
 *     (S_a·S_b / (n_a·n_b)) reaches `mergeThreshold` (≥ `threshold`) merge,
 *     the smaller into the larger, and so on while merges happen.
 *   - A deleted face leaves its cluster: the storage layer recomputes the
 *     cluster's sum from its remaining members; an empty cluster is dropped.
 * Why the mean cosine with the members and not the cosine with the centroid:
 * the centroid of a cluster that holds two different people points between
 * them, toward the "average face", and the cosine with it of any other face
 * grows as the cluster mixes, so a centroid rule snowballs into one big
 * cluster when different people are not far apart (measured: the SFace
 * stand-in put 33 of the school photo's faces in one cluster that way). The
 * mean cosine falls instead when a cluster mixes (|S|/n shrinks), so the
 * threshold keeps its meaning — "as similar to these faces as two photos of
 * one person are" — at any cluster size, at the same cost.
 * Merge check for free: with no two clusters at a mean cross-cosine ≥ M
 * before a join, cluster A joined by v can reach M with cluster j only if v's
 * own score for j is ≥ M (proof at `add`), so the scan that placed v already
 * names the few candidates, usually none.
 *
 * Thresholds depend on the model: see `faceClusterThreshold`.
 */
import { createHash } from 'node:crypto';
import { newMediaId } from '../ids.js';
import { sfaceStandinModel } from '../models/standins/vision/sface.js';

// ------------------------------------------------------------------ thresholds

/**
 * Real SFace without landmark alignment (a mean cosine with the cluster's
 * members). OpenCV's own "same person" cut is a cosine of 0.363 between two
 * aligned faces; unaligned crops (what UltraFace boxes give) score lower for
 * the same person and the cut is less sure, so clustering starts stricter:
 * splitting one person into two clusters is a smaller harm than putting two
 * people in one (a split heals when later faces bridge the two and they
 * merge; a mix never comes apart). Not yet measured on the real weights: the
 * setting (FACE_CLUSTER_THRESHOLDS) overrides it.
 */
export const SFACE_CLUSTER_THRESHOLD = 0.45;
/**
 * The SFace stand-in (src/vision/standins/faces.ts) measures the layout of
 * colour in the crop, not identity: crops of the same face score 0.93–0.998,
 * but small faces of different people in one group photo reach 0.95 too (43
 * of the 1275 pairs of ulf_1.jpg's 51 faces are ≥ 0.8, 6 are ≥ 0.9). At 0.9
 * every copy and crop of ulf_5's face stays in one cluster and ulf_1's 51
 * faces fall into 47 clusters (35 at 0.8).
 */
export const SFACE_STANDIN_CLUSTER_THRESHOLD = 0.9;
/** Any other face model until it is measured. */
export const DEFAULT_CLUSTER_THRESHOLD = 0.5;

/** Model-id prefix → threshold; the longest prefix matching a model id wins. */
export type ThresholdTable = Readonly<Record<string, number>>;

let standinId: string | null = null;
/**
 * The model id the SFace stand-in gets under the catalog name `sface`
 * (`sface:<sha12 of its bytes>`): the stand-in is generated deterministically,
 * so it can be told from the real weights by its hash.
 */
export function sfaceStandinModelId(): string {
  standinId ??= `sface:${createHash('sha256').update(sfaceStandinModel()).digest('hex').slice(0, 12)}`;
  return standinId;
}

/** The built-in table: the stand-in's exact id, then any `sface…`. */
export function defaultThresholds(): ThresholdTable {
  return { [sfaceStandinModelId()]: SFACE_STANDIN_CLUSTER_THRESHOLD, sface: SFACE_CLUSTER_THRESHOLD };
}

/**
 * The join threshold for a model id: the longest matching prefix in
 * `overrides`, then in the built-in table, else DEFAULT_CLUSTER_THRESHOLD.
 */
export function faceClusterThreshold(modelId: string, overrides: ThresholdTable = {}): number {
  for (const table of [overrides, defaultThresholds()]) {
    let best: string | null = null;
    for (const prefix of Object.keys(table)) {
      if (modelId.startsWith(prefix) && (best === null || prefix.length > best.length)) best = prefix;
    }
    if (best !== null) return table[best];
  }
  return DEFAULT_CLUSTER_THRESHOLD;
}

/**
 * Parses a setting such as `sface=0.45,sface:6791e2349554=0.8` (for example
 * from FACE_CLUSTER_THRESHOLDS). A bare number applies to every model (prefix '').
 */
export function parseThresholds(text: string | undefined | null): ThresholdTable {
  const out: Record<string, number> = {};
  for (const part of (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = part.lastIndexOf('=');
    const prefix = eq < 0 ? '' : part.slice(0, eq).trim();
    const value = Number(eq < 0 ? part : part.slice(eq + 1));
    if (!Number.isFinite(value) || value <= -1 || value >= 1)
      throw new Error(`bad cluster threshold "${part}": want prefix=number in (-1, 1)`);
    out[prefix] = value;
  }
  return out;
}

// ------------------------------------------------------------------ vectors

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** float32 little-endian bytes → a fresh Float32Array (copied: SQLite buffers are not 4-byte aligned). */
export function vectorFromBlob(blob: Uint8Array): Float32Array {
  const n = blob.byteLength >>> 2;
  if (LITTLE_ENDIAN) return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + n * 4));
  const out = new Float32Array(n);
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  for (let i = 0; i < n; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** float32 little-endian bytes of a vector. */
export function vectorToBlob(v: ArrayLike<number>): Buffer {
  const f = v instanceof Float32Array ? v : Float32Array.from(v);
  if (LITTLE_ENDIAN) return Buffer.from(f.buffer.slice(f.byteOffset, f.byteOffset + f.byteLength));
  const buf = Buffer.allocUnsafe(f.length * 4);
  for (let i = 0; i < f.length; i++) buf.writeFloatLE(f[i], i * 4);
  return buf;
}

function norm(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
}

/** The unit vector of `v` (the first axis for a zero vector). */
export function unit(v: ArrayLike<number>): Float32Array {
  const n = norm(v);
  const out = new Float32Array(v.length);
  if (!(n > 1e-12)) {
    out[0] = 1;
    return out;
  }
  for (let i = 0; i < v.length; i++) out[i] = v[i] / n;
  return out;
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

// ------------------------------------------------------------------ online clustering

export interface ClusterOptions {
  /**
   * A face joins the best cluster when its mean cosine with the cluster's
   * members (average linkage) is at least this.
   */
  threshold: number;
  /** Two clusters merge when the mean cosine between their members reaches this (default and minimum: `threshold`). */
  mergeThreshold?: number;
}

/** A cluster as the online clusterer holds it (and the storage layer stores it). */
export interface ClusterState {
  id: string;
  /** Sum of the members' unit vectors. */
  sum: Float32Array | Float64Array;
  size: number;
  /** The member most like the centroid when it joined, and that cosine. */
  previewObjectId: string | null;
  previewSimilarity: number;
}

export interface AddResult {
  clusterId: string;
  /** Cosine of the face with its cluster's centroid after joining (1 for a new cluster). */
  similarity: number;
  /** Mean cosine of the face with the members it joined (null for a new cluster). */
  linkage: number | null;
  created: boolean;
  /** Clusters merged away (`from`, into `into`) because of this face, in order. */
  merges: Array<{ from: string; into: string }>;
}

/**
 * The clusters of one (collection, model) in memory. Centroids live in one
 * contiguous Float32Array (slot-packed; a removed cluster's slot is refilled
 * by the last one), so scoring a face against every cluster is one tight scan.
 */
export class OnlineClusterer {
  readonly dims: number;
  readonly threshold: number;
  readonly mergeThreshold: number;
  private ids: string[] = [];
  private sums: Float64Array[] = [];
  private sizes: number[] = [];
  /** |sum| / size per slot: the scale from "cosine with the centroid" to "mean cosine with the members". */
  private tight: Float64Array;
  private previews: Array<{ id: string | null; sim: number }> = [];
  private slotOf = new Map<string, number>();
  private centroids: Float32Array;
  /** Per slot, the scores of the last scan. */
  private scratch: Float64Array;
  /** Ids whose state changed (created, joined, merged into, recomputed) since the last `drainChanges`. */
  private changed = new Set<string>();
  private removed = new Set<string>();
  private readonly newId: () => string;

  constructor(dims: number, opts: ClusterOptions, newId: () => string = newMediaId) {
    if (!(dims > 0)) throw new Error('dims must be positive');
    this.dims = dims;
    this.threshold = opts.threshold;
    this.mergeThreshold = Math.max(opts.threshold, opts.mergeThreshold ?? opts.threshold);
    this.centroids = new Float32Array(dims * 16);
    this.tight = new Float64Array(16);
    this.scratch = new Float64Array(16);
    this.newId = newId;
  }

  get count(): number {
    return this.ids.length;
  }

  /** Adds an existing cluster (loaded from storage). */
  load(c: ClusterState): void {
    if (c.sum.length !== this.dims) throw new Error(`cluster ${c.id} has ${c.sum.length} dims, want ${this.dims}`);
    if (this.slotOf.has(c.id)) throw new Error(`cluster ${c.id} loaded twice`);
    this.push(c.id, Float64Array.from(c.sum), c.size, { id: c.previewObjectId, sim: c.previewSimilarity });
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  get(id: string): ClusterState | null {
    const s = this.slotOf.get(id);
    if (s === undefined) return null;
    return {
      id,
      sum: this.sums[s],
      size: this.sizes[s],
      previewObjectId: this.previews[s].id,
      previewSimilarity: this.previews[s].sim,
    };
  }

  /** The unit centroid of a cluster (a copy). */
  centroid(id: string): Float32Array | null {
    const s = this.slotOf.get(id);
    return s === undefined ? null : this.centroids.slice(s * this.dims, (s + 1) * this.dims);
  }

  all(): ClusterState[] {
    return this.ids.map((id) => this.get(id)!);
  }

  /**
   * Scores a unit vector against every cluster: its mean cosine with the
   * members, v·sum/size = (v·centroid)·tightness. Leaves every score in
   * `scratch`; returns the best slot (-1 when there is none) and score.
   */
  private scan(v: ArrayLike<number>, exceptSlot = -1): { slot: number; score: number } {
    const d = this.dims;
    const c = this.centroids;
    const t = this.tight;
    const n = this.ids.length;
    if (this.scratch.length < n) this.scratch = new Float64Array(Math.max(n, this.scratch.length * 2));
    const scores = this.scratch;
    let best = -1;
    let bestScore = -Infinity;
    for (let s = 0, o = 0; s < n; s++, o += d) {
      let acc0 = 0;
      let acc1 = 0;
      let acc2 = 0;
      let acc3 = 0;
      let i = 0;
      for (; i + 3 < d; i += 4) {
        acc0 += c[o + i] * v[i];
        acc1 += c[o + i + 1] * v[i + 1];
        acc2 += c[o + i + 2] * v[i + 2];
        acc3 += c[o + i + 3] * v[i + 3];
      }
      for (; i < d; i++) acc0 += c[o + i] * v[i];
      const score = (acc0 + acc1 + acc2 + acc3) * t[s];
      scores[s] = score;
      if (s !== exceptSlot && score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    return { slot: best, score: bestScore };
  }

  /** The cluster a unit vector would join (null when it would start one) and its mean cosine with the members; changes nothing. */
  match(v: ArrayLike<number>): { clusterId: string; linkage: number } | null {
    const { slot, score } = this.scan(v);
    return slot >= 0 && score >= this.threshold ? { clusterId: this.ids[slot], linkage: score } : null;
  }

  /** Clusters one face (a unit vector). */
  add(objectId: string, v: ArrayLike<number>): AddResult {
    if (v.length !== this.dims) throw new Error(`vector has ${v.length} dims, want ${this.dims}`);
    const { slot, score } = this.scan(v);
    if (slot < 0 || score < this.threshold) {
      // Below the threshold with every cluster, hence below the merge threshold too: nothing to merge.
      const id = this.newId();
      this.push(id, Float64Array.from(v), 1, { id: objectId, sim: 1 });
      this.changed.add(id);
      return { clusterId: id, similarity: 1, linkage: null, created: true, merges: [] };
    }
    // Merge candidates, from the scan just made. With no two clusters at a mean
    // cosine ≥ M before (the invariant merging keeps), cluster A (sum S, n
    // members) joined by v reaches L(A+v, j) = (S·S_j + v·S_j) / ((n+1)·n_j)
    // < (M·n + score_j(v)) / (n+1), so only clusters whose own score for v is
    // ≥ M can merge with it now: usually none. (Where the invariant does not
    // hold — a threshold lowered, a cluster recomputed after deletions — a
    // merge may wait for a later face; nothing is ever merged wrongly.)
    const candidates: string[] = [];
    for (let s = 0; s < this.ids.length; s++) {
      if (s !== slot && this.scratch[s] >= this.mergeThreshold - 1e-9) candidates.push(this.ids[s]);
    }
    const sum = this.sums[slot];
    for (let i = 0; i < this.dims; i++) sum[i] += v[i];
    this.sizes[slot]++;
    this.writeCentroid(slot);
    const id = this.ids[slot];
    this.changed.add(id);
    const own = this.centroidDot(slot, v);
    if (this.previews[slot].id === null || own > this.previews[slot].sim)
      this.previews[slot] = { id: objectId, sim: own };

    const merges: AddResult['merges'] = [];
    let current = id;
    let first = true;
    for (;;) {
      const cs = this.slotOf.get(current)!;
      const cen = this.centroids.slice(cs * this.dims, (cs + 1) * this.dims);
      let other = -1;
      let link = -Infinity;
      if (first) {
        for (const cid of candidates) {
          const s = this.slotOf.get(cid)!;
          const l = this.centroidDot(s, cen) * this.tight[s] * this.tight[cs];
          if (l > link) [link, other] = [l, s];
        }
      } else {
        // After a merge the centroid jumped: a full scan.
        const r = this.scan(cen, cs);
        [other, link] = [r.slot, r.score * this.tight[cs]];
      }
      first = false;
      if (other < 0 || link < this.mergeThreshold) break;
      const m = this.merge(this.ids[other], current);
      merges.push(m);
      current = m.into;
    }
    const fs = this.slotOf.get(current)!;
    return { clusterId: current, similarity: this.centroidDot(fs, v), linkage: score, created: false, merges };
  }

  /**
   * Merges two clusters: the smaller (by size; on a tie the second) goes into
   * the larger, whose id stays.
   */
  merge(a: string, b: string): { from: string; into: string } {
    const sa = this.slotOf.get(a);
    const sb = this.slotOf.get(b);
    if (sa === undefined || sb === undefined || a === b) throw new Error(`cannot merge ${a} and ${b}`);
    const [keep, gone] = this.sizes[sa] >= this.sizes[sb] ? [a, b] : [b, a];
    const sk = this.slotOf.get(keep)!;
    const sg = this.slotOf.get(gone)!;
    const sum = this.sums[sk];
    const other = this.sums[sg];
    for (let i = 0; i < this.dims; i++) sum[i] += other[i];
    this.sizes[sk] += this.sizes[sg];
    const pg = this.previews[sg];
    this.writeCentroid(sk);
    this.previews[sk] = pg.sim > this.previews[sk].sim ? pg : this.previews[sk];
    this.drop(gone);
    this.changed.add(keep);
    return { from: gone, into: keep };
  }

  /** Takes one face out of a cluster; the cluster goes when it empties. Returns whether it still exists. */
  remove(clusterId: string, v: ArrayLike<number>): boolean {
    const s = this.slotOf.get(clusterId);
    if (s === undefined) return false;
    if (this.sizes[s] <= 1) {
      this.drop(clusterId);
      return false;
    }
    const sum = this.sums[s];
    for (let i = 0; i < this.dims; i++) sum[i] -= v[i];
    this.sizes[s]--;
    this.writeCentroid(s);
    this.changed.add(clusterId);
    return true;
  }

  /** Replaces a cluster's state (recomputed from its members by the caller). */
  replace(c: ClusterState): void {
    const s = this.slotOf.get(c.id);
    if (s === undefined) return this.load(c);
    if (c.size <= 0) return this.drop(c.id);
    this.sums[s] = Float64Array.from(c.sum);
    this.sizes[s] = c.size;
    this.previews[s] = { id: c.previewObjectId, sim: c.previewSimilarity };
    this.writeCentroid(s);
    this.changed.add(c.id);
  }

  /** What changed since the last call: clusters to write and clusters to delete. */
  drainChanges(): { changed: ClusterState[]; removed: string[] } {
    const changed = [...this.changed].filter((id) => this.slotOf.has(id)).map((id) => this.get(id)!);
    const removed = [...this.removed];
    this.changed.clear();
    this.removed.clear();
    return { changed, removed };
  }

  private centroidDot(slot: number, v: ArrayLike<number>): number {
    const c = this.centroids;
    const o = slot * this.dims;
    let s = 0;
    for (let i = 0; i < this.dims; i++) s += c[o + i] * v[i];
    return s;
  }

  private push(id: string, sum: Float64Array, size: number, preview: { id: string | null; sim: number }): void {
    const slot = this.ids.length;
    if ((slot + 1) * this.dims > this.centroids.length) {
      const bigger = new Float32Array(this.centroids.length * 2);
      bigger.set(this.centroids);
      this.centroids = bigger;
    }
    if (slot >= this.tight.length) {
      const bigger = new Float64Array(this.tight.length * 2);
      bigger.set(this.tight);
      this.tight = bigger;
    }
    this.ids.push(id);
    this.sums.push(sum);
    this.sizes.push(size);
    this.previews.push(preview);
    this.slotOf.set(id, slot);
    this.writeCentroid(slot);
    this.removed.delete(id);
  }

  private drop(id: string): void {
    const s = this.slotOf.get(id);
    if (s === undefined) return;
    const last = this.ids.length - 1;
    if (s !== last) {
      const lastId = this.ids[last];
      this.ids[s] = lastId;
      this.sums[s] = this.sums[last];
      this.sizes[s] = this.sizes[last];
      this.tight[s] = this.tight[last];
      this.previews[s] = this.previews[last];
      this.centroids.copyWithin(s * this.dims, last * this.dims, (last + 1) * this.dims);
      this.slotOf.set(lastId, s);
    }
    this.ids.pop();
    this.sums.pop();
    this.sizes.pop();
    this.previews.pop();
    this.slotOf.delete(id);
    this.changed.delete(id);
    this.removed.add(id);
  }

  private writeCentroid(slot: number): void {
    const sum = this.sums[slot];
    const n = norm(sum);
    const o = slot * this.dims;
    this.tight[slot] = this.sizes[slot] > 0 ? n / this.sizes[slot] : 0;
    if (!(n > 1e-12)) {
      this.centroids.fill(0, o, o + this.dims);
      this.centroids[o] = 1;
      return;
    }
    for (let i = 0; i < this.dims; i++) this.centroids[o + i] = sum[i] / n;
  }
}

/** Sum, unit centroid and the member nearest to it, for a cluster recomputed from its members' vectors. */
export function summarise(
  members: Array<{ objectId: string; vector: ArrayLike<number> }>,
  dims: number,
): {
  sum: Float64Array;
  centroid: Float32Array;
  size: number;
  previewObjectId: string | null;
  previewSimilarity: number;
} {
  const sum = new Float64Array(dims);
  for (const m of members) for (let i = 0; i < dims; i++) sum[i] += m.vector[i];
  const centroid = unit(sum);
  let previewObjectId: string | null = null;
  let previewSimilarity = -Infinity;
  for (const m of members) {
    const s = dot(centroid, m.vector);
    if (s > previewSimilarity) {
      previewSimilarity = s;
      previewObjectId = m.objectId;
    }
  }
  return {
    sum,
    centroid,
    size: members.length,
    previewObjectId,
    previewSimilarity: members.length ? previewSimilarity : 0,
  };
}

/**
 * Clusters a list of unit vectors in the given order: the label (cluster
 * index, 0-based in order of first appearance) of each. For tests and tools.
 */
export function clusterVectors(vectors: ArrayLike<number>[], opts: ClusterOptions): number[] {
  if (vectors.length === 0) return [];
  let n = 0;
  const c = new OnlineClusterer(vectors[0].length, opts, () => `c${n++}`);
  const assigned: string[] = [];
  const redirect = new Map<string, string>();
  for (let i = 0; i < vectors.length; i++) {
    const r = c.add(String(i), vectors[i]);
    for (const m of r.merges) redirect.set(m.from, m.into);
    assigned.push(r.clusterId);
  }
  const final = (id: string): string => {
    let x = id;
    while (redirect.has(x)) x = redirect.get(x)!;
    return x;
  };
  const labels = new Map<string, number>();
  return assigned.map((id) => {
    const f = final(id);
    if (!labels.has(f)) labels.set(f, labels.size);
    return labels.get(f)!;
  });
}

/**
 * Pairwise agreement of two labelings of the same items (the Rand index):
 * the share of pairs that both put together or both keep apart. 1 = the same partition.
 */
export function randIndex(a: number[], b: number[]): number {
  if (a.length !== b.length) throw new Error('labelings differ in length');
  let agree = 0;
  let pairs = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = i + 1; j < a.length; j++) {
      pairs++;
      if ((a[i] === a[j]) === (b[i] === b[j])) agree++;
    }
  }
  return pairs ? agree / pairs : 1;
}

// ------------------------------------------------------------------ storage interface

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
  /** Join thresholds by model-id prefix, over the built-in ones (faceClusterThreshold). */
  thresholds?: ThresholdTable;
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
  assignPending(datasetId: string | null, limit: number, opts?: AssignOptions): Promise<AssignResult>;
  /** Faces waiting to be clustered in the collection (null: everywhere). */
  pendingCount(datasetId: string | null): Promise<number>;
  /** Clusters of a collection, biggest first (ties by id). */
  listClusters(
    datasetId: string,
    opts?: { limit?: number; offset?: number; minSize?: number; modelId?: string },
  ): Promise<ClusterSummary[]>;
  countClusters(datasetId: string, opts?: { minSize?: number; modelId?: string }): Promise<number>;
  getCluster(id: string): Promise<(ClusterSummary & { datasetId: string }) | null>;
  /** Distinct ids of the items holding faces of the cluster (any status; browse filters). */
  mediaIdsInCluster(clusterId: string): Promise<string[]>;
  /** The cluster of a face, or null while it is pending (or not a clustered face). */
  clusterOfObject(objectId: string): Promise<string | null>;
}

// ------------------------------------------------------------------ job

export const CLUSTER_FACES_JOB = 'cluster-faces';

export interface ClusterFacesPayload {
  /** The collection whose new faces to cluster; null: every collection. */
  datasetId: string | null;
}

/**
 * The `cluster-faces` job's body: assigns every pending face of the collection
 * in rounds of `round` faces, checking the signal and reporting progress
 * between rounds. Idempotent: a rerun finds only what is still pending.
 */
export async function clusterFacesJob(
  store: Pick<ClusterStore, 'assignPending'>,
  payload: ClusterFacesPayload,
  ctx: {
    signal?: AbortSignal;
    progress?: (p: unknown) => Promise<void>;
    thresholds?: ThresholdTable;
    round?: number;
  } = {},
): Promise<AssignResult> {
  const total: AssignResult = { assigned: 0, created: 0, merged: 0, skipped: 0, refreshed: 0, dropped: 0, more: false };
  for (;;) {
    if (ctx.signal?.aborted) throw ctx.signal.reason ?? new Error('aborted');
    const r = await store.assignPending(payload.datasetId, ctx.round ?? 2000, {
      thresholds: ctx.thresholds,
      signal: ctx.signal,
    });
    total.assigned += r.assigned;
    total.created += r.created;
    total.merged += r.merged;
    total.skipped += r.skipped;
    total.refreshed += r.refreshed;
    total.dropped += r.dropped;
    total.more = r.more;
    if (!r.more) return total;
    await ctx.progress?.({ assigned: total.assigned, clustersCreated: total.created, merged: total.merged });
  }
}
