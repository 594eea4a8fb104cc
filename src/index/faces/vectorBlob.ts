/**
 * Face vectors in SQLite blobs: float32, little-endian, whatever the host's
 * byte order.
 */

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
