/**
 * Greedy non-maximum suppression over boxes held in flat typed arrays
 * (corner form x1, y1, x2, y2 per box), optionally per class.
 */

/** Intersection over union of boxes i and j of a corner-form array. */
export function iou(boxes: Float32Array, i: number, j: number): number {
  const a = i * 4;
  const b = j * 4;
  const ix1 = Math.max(boxes[a], boxes[b]);
  const iy1 = Math.max(boxes[a + 1], boxes[b + 1]);
  const ix2 = Math.min(boxes[a + 2], boxes[b + 2]);
  const iy2 = Math.min(boxes[a + 3], boxes[b + 3]);
  const iw = ix2 - ix1;
  const ih = iy2 - iy1;
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  const areaA = (boxes[a + 2] - boxes[a]) * (boxes[a + 3] - boxes[a + 1]);
  const areaB = (boxes[b + 2] - boxes[b]) * (boxes[b + 3] - boxes[b + 1]);
  const union = areaA + areaB - inter;
  return union > 0 ? inter / union : 0;
}

export interface NmsOptions {
  /** Suppress a box whose IoU with a kept, higher-scoring box exceeds this. */
  iouThreshold: number;
  /** Per-box class: boxes only suppress boxes of their own class. Omit for class-agnostic NMS. */
  classes?: ArrayLike<number>;
  /** Stop after this many kept boxes. */
  maxOutput?: number;
  /** Consider only the `maxCandidates` highest-scoring boxes (bounds the O(n²) work). Default 3000. */
  maxCandidates?: number;
}

/**
 * Returns the indices of the boxes kept, highest score first. Ties keep the
 * lower index first, so the result is deterministic.
 */
export function nms(boxes: Float32Array, scores: ArrayLike<number>, opts: NmsOptions): number[] {
  const n = scores.length;
  if (boxes.length < n * 4) throw new Error(`nms: ${boxes.length / 4} boxes for ${n} scores`);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
  if (order.length > (opts.maxCandidates ?? 3000)) order.length = opts.maxCandidates ?? 3000;
  const maxOutput = opts.maxOutput ?? Infinity;
  const classes = opts.classes;
  const suppressed = new Uint8Array(n);
  const keep: number[] = [];
  for (let oi = 0; oi < order.length && keep.length < maxOutput; oi++) {
    const i = order[oi];
    if (suppressed[i]) continue;
    keep.push(i);
    for (let oj = oi + 1; oj < order.length; oj++) {
      const j = order[oj];
      if (suppressed[j]) continue;
      if (classes && classes[i] !== classes[j]) continue;
      if (iou(boxes, i, j) > opts.iouThreshold) suppressed[j] = 1;
    }
  }
  return keep;
}
