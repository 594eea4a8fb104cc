/**
 * The vector operations of face clustering, and a cluster's summary
 * recomputed from its members' vectors.
 */

/** Euclidean length. */
export function norm(v: ArrayLike<number>): number {
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

/** Dot product over the first vector's length. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
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
