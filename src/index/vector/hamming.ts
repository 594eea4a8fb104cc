/**
 * Hamming distances between 1-bit codes packed in 32-bit words: the kernel
 * interface the in-memory first pass counts with, and its JavaScript
 * implementation (SWAR popcount). hammingSimd.ts is the faster WebAssembly one.
 */

/** Distances of `rows` codes (the kernel's words each) to the query, written to `out` from `at`. */
export interface HammingKernel {
  distances(codes: Uint32Array, rows: number, query: Uint32Array, out: Uint16Array, at: number): void;
}

/** The JavaScript kernel for codes of `words` 32-bit words (any code size, any runtime). */
export function jsHamming(words: number): HammingKernel {
  return { distances: (codes, rows, query, out, at) => distances(codes, rows, query, words, out, at) };
}

/**
 * Hamming distances of `rows` codes (W words each) to the query `q`, written
 * to out[at..]. Kept apart and branch-free: it is the loop a query spends its
 * first pass in when SIMD cannot run.
 */
function distances(codes: Uint32Array, rows: number, q: Uint32Array, W: number, out: Uint16Array, at: number): void {
  // SWAR popcount written out (a helper function is not inlined this many times a loop), four words a step.
  const W4 = W & ~3;
  for (let r = 0, o = 0; r < rows; r++, o += W) {
    let d = 0;
    let w = 0;
    for (; w < W4; w += 4) {
      let a = codes[o + w] ^ q[w];
      let b = codes[o + w + 1] ^ q[w + 1];
      let c = codes[o + w + 2] ^ q[w + 2];
      let e = codes[o + w + 3] ^ q[w + 3];
      a -= (a >>> 1) & 0x55555555;
      b -= (b >>> 1) & 0x55555555;
      c -= (c >>> 1) & 0x55555555;
      e -= (e >>> 1) & 0x55555555;
      a = (a & 0x33333333) + ((a >>> 2) & 0x33333333);
      b = (b & 0x33333333) + ((b >>> 2) & 0x33333333);
      c = (c & 0x33333333) + ((c >>> 2) & 0x33333333);
      e = (e & 0x33333333) + ((e >>> 2) & 0x33333333);
      // Four 4-bit-per-nibble sums fit a byte each: add them before the final multiply.
      const s =
        ((a + (a >>> 4)) & 0x0f0f0f0f) +
        ((b + (b >>> 4)) & 0x0f0f0f0f) +
        ((c + (c >>> 4)) & 0x0f0f0f0f) +
        ((e + (e >>> 4)) & 0x0f0f0f0f);
      d += Math.imul(s, 0x01010101) >>> 24;
    }
    for (; w < W; w++) {
      let v = codes[o + w] ^ q[w];
      v -= (v >>> 1) & 0x55555555;
      v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
      d += Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
    }
    out[at + r] = d;
  }
}
