/**
 * Sets of items as compressed bitmaps over item numbers (`media_ords.ord`),
 * stored one chunk per row: the chunk of item n is n >> 14, and a chunk's blob
 * holds the low 14 bits of its members either as a sorted array of uint16
 * (little-endian, at most 1,023 members: under 2 KiB) or as a 2 KiB bitmap
 * (exactly 2,048 bytes), whichever is smaller — the containers of Roaring
 * bitmaps, sized so a chunk's row fits in one 4 KiB database page. The
 * encoding is canonical: a chunk is an array exactly when it has at most
 * 1,023 members, so equal sets are equal blobs.
 *
 * The writing side (`addToChunk`, `removeFromChunk`, `encodeChunk`) backs the
 * SQL functions the triggers of migration 021 call; the reading side
 * (`ItemSet`) is what a listing computes its candidates and totals with.
 */

export const CHUNK_SHIFT = 14;
const CHUNK_SIZE = 1 << CHUNK_SHIFT;
const LOW_MASK = CHUNK_SIZE - 1;
const WORDS = CHUNK_SIZE / 32;
const BITMAP_BYTES = CHUNK_SIZE / 8;
const ARRAY_MAX = BITMAP_BYTES / 2 - 1;

/** Bits set in a 32-bit word. */
function popcount32(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Members of a chunk's words. */
export function countWords(words: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < words.length; i++) if (words[i] !== 0) n += popcount32(words[i]);
  return n;
}

const isBitmap = (blob: Uint8Array): boolean => blob.length === BITMAP_BYTES;

/** A chunk's blob (either container; empty or null for none) as 512 words. */
export function decodeChunk(blob: Uint8Array | null): Uint32Array {
  const words = new Uint32Array(WORDS);
  if (!blob || blob.length === 0) return words;
  if (isBitmap(blob)) {
    new Uint8Array(words.buffer).set(blob);
    return words;
  }
  for (let i = 0; i + 1 < blob.length; i += 2) {
    const low = blob[i] | (blob[i + 1] << 8);
    words[low >>> 5] |= 1 << (low & 31);
  }
  return words;
}

/** Adds a chunk's blob to `words` in place (no decoding into new words: a day range reads thousands of rows). */
export function orInto(words: Uint32Array, blob: Uint8Array): void {
  if (isBitmap(blob)) {
    for (let i = 0, at = 0; i < WORDS; i++, at += 4)
      words[i] |= blob[at] | (blob[at + 1] << 8) | (blob[at + 2] << 16) | (blob[at + 3] << 24);
    return;
  }
  for (let i = 0; i + 1 < blob.length; i += 2) {
    const low = blob[i] | (blob[i + 1] << 8);
    words[low >>> 5] |= 1 << (low & 31);
  }
}

/** The canonical blob of a chunk's words: a sorted uint16 array up to 1,023 members, else the bitmap. */
export function encodeChunk(words: Uint32Array): Buffer {
  const n = countWords(words);
  if (n > ARRAY_MAX) return Buffer.from(new Uint8Array(words.buffer, words.byteOffset, BITMAP_BYTES));
  const out = Buffer.alloc(n * 2);
  let at = 0;
  for (let w = 0; w < WORDS; w++) {
    let word = words[w];
    while (word !== 0) {
      const bit = 31 - Math.clz32(word & -word);
      out.writeUInt16LE(w * 32 + bit, at);
      at += 2;
      word &= word - 1;
    }
  }
  return out;
}

/** The chunk with `low` (0–16,383) added. */
export function addToChunk(blob: Uint8Array | null, low: number): Buffer {
  const words = decodeChunk(blob);
  words[low >>> 5] |= 1 << (low & 31);
  return encodeChunk(words);
}

/** The chunk with `low` removed (an empty blob when nothing is left). */
export function removeFromChunk(blob: Uint8Array | null, low: number): Buffer {
  const words = decodeChunk(blob);
  words[low >>> 5] &= ~(1 << (low & 31));
  return encodeChunk(words);
}

/** The union of two chunks (a folder move adds its items to the scopes it joins). */
export function orChunks(a: Uint8Array | null, b: Uint8Array | null): Buffer {
  const words = decodeChunk(a);
  if (b) orInto(words, b);
  return encodeChunk(words);
}

/** The members of `a` not in `b` (a folder move takes its items out of the scopes it leaves). */
export function subtractChunks(a: Uint8Array | null, b: Uint8Array | null): Buffer {
  const words = decodeChunk(a);
  const gone = decodeChunk(b);
  for (let i = 0; i < WORDS; i++) words[i] &= ~gone[i];
  return encodeChunk(words);
}

/** The low bits of an item number (its place in its chunk). */
export const lowBits = (ord: number): number => ord & LOW_MASK;

/** A chunk row as read from scope_bits, tag_bits or day_bits. */
export interface ChunkRow {
  chunk: number;
  bits: Uint8Array;
}

/** A set of item numbers, read from chunk rows, for set arithmetic at query time. */
export class ItemSet {
  private constructor(private readonly chunks: Map<number, Uint32Array>) {}

  /** The union of the rows (several rows of one chunk are or-ed). */
  static union(rows: Iterable<ChunkRow>): ItemSet {
    const chunks = new Map<number, Uint32Array>();
    for (const row of rows) {
      const have = chunks.get(row.chunk);
      if (have) orInto(have, row.bits);
      else chunks.set(row.chunk, decodeChunk(row.bits));
    }
    return new ItemSet(chunks);
  }

  /** Keeps only the members also in `other`. */
  intersect(other: ItemSet): this {
    for (const [chunk, words] of this.chunks) {
      const theirs = other.chunks.get(chunk);
      if (!theirs) {
        this.chunks.delete(chunk);
        continue;
      }
      for (let i = 0; i < WORDS; i++) words[i] &= theirs[i];
    }
    return this;
  }

  /** Takes out the members of `other`. */
  subtract(other: ItemSet): this {
    for (const [chunk, words] of this.chunks) {
      const theirs = other.chunks.get(chunk);
      if (theirs) for (let i = 0; i < WORDS; i++) words[i] &= ~theirs[i];
    }
    return this;
  }

  /** Takes `ord` out (nothing when it is not a member). */
  remove(ord: number): void {
    const words = this.chunks.get(ord >>> CHUNK_SHIFT);
    if (words) words[(ord & LOW_MASK) >>> 5] &= ~(1 << (ord & 31));
  }

  has(ord: number): boolean {
    const words = this.chunks.get(ord >>> CHUNK_SHIFT);
    return words !== undefined && (words[(ord & LOW_MASK) >>> 5] & (1 << (ord & 31))) !== 0;
  }

  size(): number {
    let n = 0;
    for (const words of this.chunks.values()) n += countWords(words);
    return n;
  }

  /** Calls `fn` with each member, in no particular order (faster than `members`). */
  forEachMember(fn: (ord: number) => void): void {
    for (const [chunk, words] of this.chunks) {
      for (let w = 0; w < WORDS; w++) {
        let word = words[w];
        while (word !== 0) {
          fn((chunk << CHUNK_SHIFT) + w * 32 + (31 - Math.clz32(word & -word)));
          word &= word - 1;
        }
      }
    }
  }

  /** The members in increasing order. */
  *members(): Generator<number> {
    for (const chunk of [...this.chunks.keys()].sort((a, b) => a - b)) {
      const words = this.chunks.get(chunk)!;
      for (let w = 0; w < WORDS; w++) {
        let word = words[w];
        while (word !== 0) {
          yield (chunk << CHUNK_SHIFT) + w * 32 + (31 - Math.clz32(word & -word));
          word &= word - 1;
        }
      }
    }
  }
}
