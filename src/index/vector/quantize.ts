/**
 * The two compressed copies the index keeps of each unit vector: the 1-bit
 * code the first pass scans and the int8 copy the re-rank scores.
 */

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

/** The scale and the int8 values of a quantizeInt8 blob (views, no copy). */
export function int8Parts(blob: Uint8Array): { scale: number; values: Int8Array } {
  return {
    scale: new DataView(blob.buffer, blob.byteOffset, 4).getFloat32(0, true),
    values: new Int8Array(blob.buffer, blob.byteOffset + 4, blob.byteLength - 4),
  };
}

/**
 * scale × the dot product of y.length int8 values from `offset` with the float
 * query y: the similarity of an int8 copy to a unit query. Four running sums
 * (the re-rank calls it ~1,000 times a query).
 */
export function int8Dot(values: Int8Array, offset: number, y: Float32Array, scale: number): number {
  const dims = y.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 4 <= dims; j += 4) {
    s0 += values[offset + j] * y[j];
    s1 += values[offset + j + 1] * y[j + 1];
    s2 += values[offset + j + 2] * y[j + 2];
    s3 += values[offset + j + 3] * y[j + 3];
  }
  for (; j < dims; j++) s0 += values[offset + j] * y[j];
  return (s0 + s1 + s2 + s3) * scale;
}

/** The int8 dot product straight from a quantizeInt8 blob (when the cache has no room for it). */
export function int8BlobDot(blob: Uint8Array, y: Float32Array): number {
  const { scale, values } = int8Parts(blob);
  return int8Dot(values, 0, y, scale);
}
