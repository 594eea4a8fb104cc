/**
 * Vector arithmetic, in one place for the whole project: L2 normalisation, dot
 * products (over row-major matrices too), cosine from L2 distance, and the
 * float32 byte layout the database stores vectors in. The vector index, face
 * clustering and the face embedder all use these.
 */

/** Sum of squares of `length` values of v from `offset`, summed in order. */
function squaredNorm(v: ArrayLike<number>, offset: number, length: number): number {
  let sum = 0;
  for (let i = offset; i < offset + length; i++) sum += v[i] * v[i];
  return sum;
}

/** Euclidean length. */
export const norm = (v: ArrayLike<number>): number => Math.sqrt(squaredNorm(v, 0, v.length));

/**
 * A unit-length float32 copy. A zero vector has no direction: by default it
 * stays zero (it matches nothing); with `zeroTo: 'firstAxis'` it becomes the
 * first axis, for callers that must hand on a unit vector whatever comes in
 * (a featureless face crop, a cluster centroid).
 */
export function normalize(v: ArrayLike<number>, zeroTo: 'zero' | 'firstAxis' = 'zero'): Float32Array {
  const length = norm(v);
  const out = new Float32Array(v.length);
  if (!(length > 1e-12)) {
    if (zeroTo === 'firstAxis' && out.length) out[0] = 1;
    return out;
  }
  const inv = 1 / length;
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  return out;
}

/** Normalises row `row` of a row-major matrix of `dims` columns in place (a zero row stays zero). */
export function normalizeRow(matrix: Float32Array, row: number, dims: number): void {
  const offset = row * dims;
  const sum = squaredNorm(matrix, offset, dims);
  if (sum === 0) return;
  const inv = 1 / Math.sqrt(sum);
  for (let i = offset; i < offset + dims; i++) matrix[i] *= inv;
}

/**
 * Dot product of v with row `row` of a row-major matrix of `dims` columns
 * (four running sums: the loop the list assignment and k-means spend their time in).
 */
export function dotRow(matrix: Float32Array, row: number, dims: number, v: ArrayLike<number>): number {
  const off = row * dims;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < dims; i += 4) {
    s0 += matrix[off + i] * v[i];
    s1 += matrix[off + i + 1] * v[i + 1];
    s2 += matrix[off + i + 2] * v[i + 2];
    s3 += matrix[off + i + 3] * v[i + 3];
  }
  for (; i < dims; i++) s0 += matrix[off + i] * v[i];
  return s0 + s1 + s2 + s3;
}

/** Dot product over a's length (cosine similarity when both are unit vectors). */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a instanceof Float32Array) return dotRow(a, 0, a.length, b);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** Cosine similarity of two unit vectors from their L2 distance. */
export const cosineFromL2 = (distance: number): number => 1 - (distance * distance) / 2;

/** The float32 bytes of a vector (a view, no copy). */
export const vectorBytes = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** A Float32Array over a blob of float32 little-endian bytes (copies when unaligned). */
export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  return new Float32Array(new Uint8Array(bytes).buffer.slice(0));
}
