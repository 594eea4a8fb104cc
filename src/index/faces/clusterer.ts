/**
 * The online face clusterer: groups the face embeddings of a collection into
 * identities, incrementally, as new faces arrive (run by the face cluster
 * store for the `cluster-faces` job of src/features/faces).
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
 * cluster when different people are not far apart (docs/measurements/models.md
 * has the case that showed it). The mean cosine falls instead when a cluster mixes (|S|/n shrinks), so the
 * threshold keeps its meaning — "as similar to these faces as two photos of
 * one person are" — at any cluster size, at the same cost.
 * Merge check for free: with no two clusters at a mean cross-cosine ≥ M
 * before a join, cluster A joined by v can reach M with cluster j only if v's
 * own score for j is ≥ M (proof at `add`), so the scan that placed v already
 * names the few candidates, usually none.
 *
 * Thresholds depend on the model: see ./thresholds.ts.
 */
import { newMediaId } from '../../platform/ids.js';
import { dotRow, norm } from '../vector/math.js';

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
  /**
   * Set by a person (named, merged, split, hidden): two pinned clusters never merge on their own, and a
   * pinned cluster merging with an unpinned one keeps its id (so a name and every manual decision stay).
   */
  pinned?: boolean;
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
  /** Ids of pinned clusters (see ClusterState.pinned). */
  private pinned = new Set<string>();
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
    if (c.pinned) this.pinned.add(c.id);
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
      pinned: this.pinned.has(id),
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
  private scan(v: ArrayLike<number>, exceptSlot = -1, skipPinned = false): { slot: number; score: number } {
    const d = this.dims;
    const c = this.centroids;
    const t = this.tight;
    const n = this.ids.length;
    if (this.scratch.length < n) this.scratch = new Float64Array(Math.max(n, this.scratch.length * 2));
    const scores = this.scratch;
    let best = -1;
    let bestScore = -Infinity;
    for (let s = 0; s < n; s++) {
      const score = dotRow(c, s, d, v) * t[s];
      scores[s] = score;
      if (s !== exceptSlot && score > bestScore && !(skipPinned && this.pinned.has(this.ids[s]))) {
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
    const joinedPinned = this.pinned.has(this.ids[slot]);
    for (let s = 0; s < this.ids.length; s++) {
      if (s === slot || this.scratch[s] < this.mergeThreshold - 1e-9) continue;
      if (!(joinedPinned && this.pinned.has(this.ids[s]))) candidates.push(this.ids[s]);
    }
    this.grow(slot, objectId, v);
    const id = this.ids[slot];

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
        const r = this.scan(cen, cs, this.pinned.has(current));
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
   * Puts a face into a named cluster, whatever its score (a face a person placed there, clustered again): no
   * merge follows. Throws when the cluster is not loaded.
   */
  join(clusterId: string, objectId: string, v: ArrayLike<number>): AddResult {
    const slot = this.slotOf.get(clusterId);
    if (slot === undefined) throw new Error(`no cluster ${clusterId}`);
    const linkage = this.centroidDot(slot, v) * this.tight[slot];
    this.grow(slot, objectId, v);
    return { clusterId, similarity: this.centroidDot(slot, v), linkage, created: false, merges: [] };
  }

  /**
   * Merges two clusters: the smaller (by size; on a tie the second) goes into
   * the larger, whose id stays; a pinned one always stays (two pinned ones never merge).
   */
  merge(a: string, b: string): { from: string; into: string } {
    const sa = this.slotOf.get(a);
    const sb = this.slotOf.get(b);
    if (sa === undefined || sb === undefined || a === b) throw new Error(`cannot merge ${a} and ${b}`);
    const pa = this.pinned.has(a);
    const pb = this.pinned.has(b);
    if (pa && pb) throw new Error(`cannot merge pinned clusters ${a} and ${b}`);
    const [keep, gone] = pa || (!pb && this.sizes[sa] >= this.sizes[sb]) ? [a, b] : [b, a];
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

  /** Adds a face to a slot's sum, centroid and preview. */
  private grow(slot: number, objectId: string, v: ArrayLike<number>): void {
    const sum = this.sums[slot];
    for (let i = 0; i < this.dims; i++) sum[i] += v[i];
    this.sizes[slot]++;
    this.writeCentroid(slot);
    this.changed.add(this.ids[slot]);
    const own = this.centroidDot(slot, v);
    if (this.previews[slot].id === null || own > this.previews[slot].sim)
      this.previews[slot] = { id: objectId, sim: own };
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
    this.pinned.delete(id);
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
