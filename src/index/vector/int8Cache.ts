/**
 * The in-memory cache of int8 copies the re-rank scores candidates from: it is
 * what keeps a query off the disk (a float row read cold is a disk read).
 */
import { int8Dot, int8Parts } from './quantize.js';

const SLAB_ROWS = 1024;
const SLAB_SHIFT = 10;

interface Slab {
  q: Int8Array;
  /** NaN: row not cached. */
  scale: Float32Array;
  count: number;
  /** Tick of its last use (the least recently used slab goes first). */
  used: number;
}

/**
 * The int8 copies of vectors in memory, by (generation, rowid). A rowid's
 * vector never changes (a replaced vector gets a new rowid), so an entry is
 * never stale: at worst it belongs to a deleted row and is never asked for.
 * That makes the cache safe with writes rolled back by an outer transaction.
 * Held in slabs of 1,024 rows, an array of them per generation (a lookup is an
 * index, not a hash: the re-rank asks ~1,000 times a query); past the byte
 * budget the least recently used slabs go.
 */
export class Int8Cache {
  private gens = new Map<number, Array<Slab | undefined>>();
  private bytes = 0;
  private slabCount = 0;
  private tick = 0;

  constructor(private readonly budgetBytes: number) {}

  private slabBytes(dims: number) {
    return SLAB_ROWS * (dims + 4);
  }

  private slabOf(gen: number, rowid: number): Slab | undefined {
    return this.gens.get(gen)?.[rowid >>> SLAB_SHIFT];
  }

  /** The cached int8 dot product of row `rowid` with `y` (a unit float query), or null when not cached. */
  dot(gen: number, rowid: number, y: Float32Array): number | null {
    const slab = this.slabOf(gen, rowid);
    if (!slab) return null;
    const slot = rowid & (SLAB_ROWS - 1);
    const scale = slab.scale[slot];
    if (Number.isNaN(scale)) return null;
    return int8Dot(slab.q, slot * y.length, y, scale);
  }

  /** Marks the slab of `rowid` as just used (once per slab and query is enough). */
  touch(gen: number, rowid: number): void {
    const slab = this.slabOf(gen, rowid);
    if (slab) slab.used = ++this.tick;
  }

  private evictOne(): void {
    let oldest: { gen: number; index: number; slab: Slab } | null = null;
    for (const [gen, slabs] of this.gens) {
      slabs.forEach((slab, index) => {
        if (slab && (!oldest || slab.used < oldest.slab.used)) oldest = { gen, index, slab };
      });
    }
    if (!oldest) return;
    const { gen, index, slab } = oldest as { gen: number; index: number; slab: Slab };
    this.gens.get(gen)![index] = undefined;
    this.bytes -= slab.q.byteLength + slab.scale.byteLength;
    this.slabCount--;
  }

  /** Stores a row's int8 copy (the quantizeInt8 layout). */
  put(gen: number, rowid: number, blob: Uint8Array): void {
    const dims = blob.byteLength - 4;
    let slabs = this.gens.get(gen);
    if (!slabs) this.gens.set(gen, (slabs = []));
    const index = rowid >>> SLAB_SHIFT;
    let slab = slabs[index];
    if (!slab) {
      if (this.budgetBytes < this.slabBytes(dims)) return;
      while (this.bytes + this.slabBytes(dims) > this.budgetBytes && this.slabCount) this.evictOne();
      slab = {
        q: new Int8Array(SLAB_ROWS * dims),
        scale: new Float32Array(SLAB_ROWS).fill(NaN),
        count: 0,
        used: ++this.tick,
      };
      slabs[index] = slab;
      this.bytes += slab.q.byteLength + slab.scale.byteLength;
      this.slabCount++;
    }
    const slot = rowid & (SLAB_ROWS - 1);
    if (Number.isNaN(slab.scale[slot])) slab.count++;
    const { scale, values } = int8Parts(blob);
    slab.scale[slot] = scale;
    slab.q.set(values, slot * dims);
  }

  /** Forgets a generation (dropped). */
  dropGeneration(gen: number): void {
    for (const slab of this.gens.get(gen) ?? []) {
      if (!slab) continue;
      this.bytes -= slab.q.byteLength + slab.scale.byteLength;
      this.slabCount--;
    }
    this.gens.delete(gen);
  }

  /** Rows of a generation held. */
  rows(gen: number): number {
    let n = 0;
    for (const slab of this.gens.get(gen) ?? []) if (slab) n += slab.count;
    return n;
  }

  get size(): { bytes: number; slabs: number } {
    return { bytes: this.bytes, slabs: this.slabCount };
  }
}
