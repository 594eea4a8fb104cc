import type Database from 'better-sqlite3';
import {
  type ItemSet,
  addToChunk,
  decodeChunk,
  encodeChunk,
  orChunks,
  orInto,
  removeFromChunk,
  subtractChunks,
} from './itemBitmap.js';

/** A connection (the Db of database.ts, named here without importing it: database.ts imports this file). */
type Db = Database.Database;

/** The candidate set `browse_has(ord)` tests against, per connection, while one listing statement runs. */
const candidates = new WeakMap<Db, ItemSet>();

/**
 * The SQL functions behind the browse bitmaps (migration 021), registered on
 * every connection before migrations run (the migration's fill and triggers
 * call them):
 * - `bits_add(bits, low)`, `bits_remove(bits, low)`: a chunk blob with one item
 *   added or removed (itemBitmap.ts);
 * - `bits_or(a, b)`, `bits_andnot(a, b)`: a chunk blob with another's items added or taken out (folder moves);
 * - `bits_of(low)`: aggregate, the chunk blob of a group's items;
 * - `bits_union(bits)`: aggregate, the chunk blob of the union of a group's chunk blobs (023: months from days);
 * - `browse_has(ord)`: whether the item number is in the set a listing put in
 *   place with `withCandidates` (false outside one).
 */
export function registerBitmapFunctions(db: Db): void {
  db.function('bits_add', { deterministic: true }, (bits, low) => addToChunk(asBlob(bits), Number(low)));
  db.function('bits_remove', { deterministic: true }, (bits, low) => removeFromChunk(asBlob(bits), Number(low)));
  db.function('bits_or', { deterministic: true }, (a, b) => orChunks(asBlob(a), asBlob(b)));
  db.function('bits_andnot', { deterministic: true }, (a, b) => subtractChunks(asBlob(a), asBlob(b)));
  db.aggregate('bits_of', {
    start: () => decodeChunk(null),
    step: (words: Uint32Array, low: unknown) => {
      const n = Number(low);
      words[n >>> 5] |= 1 << (n & 31);
    },
    result: (words: Uint32Array) => encodeChunk(words),
  });
  db.aggregate('bits_union', {
    start: () => decodeChunk(null),
    step: (words: Uint32Array, bits: unknown) => {
      const blob = asBlob(bits);
      if (blob) orInto(words, blob);
    },
    result: (words: Uint32Array) => encodeChunk(words),
  });
  db.function('browse_has', { deterministic: false }, (ord) => {
    const set = candidates.get(db);
    return set !== undefined && ord !== null && set.has(Number(ord)) ? 1 : 0;
  });
}

/** Runs `read` with `set` as what `browse_has` tests (better-sqlite3 is synchronous: nothing else runs between). */
export function withCandidates<T>(db: Db, set: ItemSet, read: () => T): T {
  candidates.set(db, set);
  try {
    return read();
  } finally {
    candidates.delete(db);
  }
}

function asBlob(value: unknown): Uint8Array | null {
  return value instanceof Uint8Array ? value : null;
}
