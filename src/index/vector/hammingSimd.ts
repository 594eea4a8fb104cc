/**
 * Hamming distances of 1-bit codes with WebAssembly SIMD: 128 bits a step
 * (XOR, then i8x16.popcnt), where JavaScript can only count 32 at a time
 * with shifts and masks (hamming.ts), so the first pass of a big search takes
 * a fraction of the JavaScript time (figures: docs/measurements/vector-index.md).
 *
 * The module is a few hundred bytes written out below (no toolchain, no
 * dependency). Its one function reads codes from its own memory, so the
 * caller copies each chunk in (a memcpy, cheap beside the counting) and reads
 * the distances out. Used only when the code is a whole number of 128-bit
 * blocks (at most 31 of them, so that byte counters cannot overflow) and the
 * runtime has SIMD; otherwise the caller counts in JavaScript.
 */
import type { HammingKernel } from './hamming.js';

// The parts of the WebAssembly global used here (this project's TypeScript libs do not declare it).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
};

/** Byte counters (i8x16) add up to 8 a block: 31 blocks stay under 256. */
const MAX_BLOCKS = 31;
const PAGE = 65_536;

// ------------------------------------------------------------ the module, byte by byte

const I32 = 0x7f;
const V128 = 0x7b;
const simd = (op: number, ...imm: number[]) => [0xfd, op, ...imm];
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const tee = (i: number) => [0x22, i];
/** i32.const of a small non-negative number (one LEB128 byte). */
const i32 = (n: number) => [0x41, n];
const add = 0x6a;
const vec = (bytes: number[]) => [bytes.length, ...bytes];
const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];
const str = (s: string) => vec([...Buffer.from(s, 'latin1')]);
/** local += n */
const bump = (local: number, n: number) => [...get(local), ...i32(n), add, ...set(local)];

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

// hamming(codes, rows, query, blocks, out): for each row, the popcount of
// (code XOR query) over `blocks` 16-byte blocks, stored as u16 at out.
const [CODES, ROWS, QUERY, BLOCKS, OUT, ROW, BLOCK, ACC, Q] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const body = [
  // locals: row, block (i32); acc (v128); q (i32)
  3,
  2,
  I32,
  1,
  V128,
  1,
  I32,
  0x02,
  0x40, // block
  0x03,
  0x40, //   loop (rows)
  ...get(ROW),
  ...get(ROWS),
  0x4f /* i32.ge_u */,
  0x0d,
  1, // br_if out of the block
  ...simd(0x0c, ...new Array(16).fill(0)),
  ...set(ACC), // acc = 0
  ...get(QUERY),
  ...set(Q),
  ...i32(0),
  ...set(BLOCK),
  0x03,
  0x40, //     loop (blocks)
  ...get(ACC),
  ...get(CODES),
  ...simd(0x00, 0, 0), // v128.load
  ...get(Q),
  ...simd(0x00, 0, 0),
  ...simd(0x51), // v128.xor
  ...simd(0x62), // i8x16.popcnt
  ...simd(0x6e), // i8x16.add
  ...set(ACC),
  ...bump(CODES, 16),
  ...bump(Q, 16),
  ...get(BLOCK),
  ...i32(1),
  add,
  ...tee(BLOCK),
  ...get(BLOCKS),
  0x49 /* i32.lt_u */,
  0x0d,
  0, // br_if (blocks)
  0x0b, //     end
  ...get(OUT),
  ...get(ACC),
  ...simd(0x7d) /* i16x8.extadd_pairwise_i8x16_u */,
  ...simd(0x7f) /* i32x4.extadd_pairwise_i16x8_u */,
  ...tee(ACC),
  ...simd(0x1b, 0), // i32x4.extract_lane 0, plus lanes 1 to 3
  ...[1, 2, 3].flatMap((lane) => [...get(ACC), ...simd(0x1b, lane), add]),
  0x3b,
  0,
  0, // i32.store16
  ...bump(OUT, 2),
  ...bump(ROW, 1),
  0x0c,
  0, //   br (rows)
  0x0b, //   end
  0x0b, // end
  0x0b, // end of function
];

const MODULE = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00,
  ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]), // type: (i32 × 5) → ()
  ...section(3, [1, 0]), // function 0 has type 0
  ...section(5, [1, 0x00, 1]), // memory: 1 page, grown on demand
  ...section(7, [2, ...str('memory'), 0x02, 0, ...str('hamming'), 0x00, 0]),
  ...section(10, [1, ...leb(body.length), ...body]),
]);

/**
 * A kernel for codes of `words` 32-bit words, or null when this runtime or
 * this code size cannot use it.
 */
export function simdHamming(words: number): HammingKernel | null {
  if (words % 4 !== 0 || words / 4 > MAX_BLOCKS || words === 0) return null;
  if (!WebAssembly.validate(MODULE)) return null;
  const instance = new WebAssembly.Instance(new WebAssembly.Module(MODULE));
  const memory = instance.exports.memory as WasmMemory;
  const hamming = instance.exports.hamming as (
    codes: number,
    rows: number,
    query: number,
    blocks: number,
    out: number,
  ) => void;
  const blocks = words / 4;
  const queryBytes = words * 4;
  return {
    distances(codes, rows, query, out, at) {
      if (rows === 0) return;
      // Layout: query, codes, distances.
      const codesAt = queryBytes;
      const outAt = codesAt + rows * queryBytes;
      const needed = outAt + rows * 2;
      if (memory.buffer.byteLength < needed) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
      const buffer = memory.buffer;
      new Uint32Array(buffer, 0, words).set(query.subarray(0, words));
      new Uint32Array(buffer, codesAt, rows * words).set(codes.subarray(0, rows * words));
      hamming(codesAt, rows, 0, blocks, outAt);
      out.set(new Uint16Array(buffer, outAt, rows), at);
    },
  };
}
