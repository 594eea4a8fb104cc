/**
 * The vector operations of face clustering, and a cluster's summary
 * recomputed from its members' vectors.
 */
import { dot, normalize } from '../vector/math.js';

/** The unit vector of `v`; a zero vector becomes the first axis, so a centroid is always a unit vector. */
export const unit = (v: ArrayLike<number>): Float32Array => normalize(v, 'firstAxis');

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
