import type { Statement } from 'better-sqlite3';
import { pathLabel } from '../../platform/ids.js';
import type { Db } from './database.js';
import type { ItemSet } from './itemBitmap.js';
import type { Cursor } from './pageCursors.js';
import { compareSortKeys } from './sortKeyOrder.js';

/** A block nobody has placed the item in (yet): new since the rank was built, or its key changed. */
const UNPLACED = 255;
/** Blocks per rank: item numbers keep their block in one byte, 255 meaning unplaced. */
const BLOCKS = 255;
/** A block this many times its size at build has taken too many new items: the rank is built again. */
const OVERGROWN = 4;
/**
 * Ranks kept at once (the oldest built goes first): each holds a byte per item number of the whole file, so
 * many big collections must not each keep four.
 */
const KEPT = 8;

/** The sort keys a rank is kept for: those whose (key, id) is a place a walk can start at (never NULL). */
const RANKED: Record<string, string> = {
  name: 'media_scope_name',
  created_at: 'media_scope_created',
  taken_at: 'media_scope_taken',
  type: 'media_scope_type',
};

/**
 * A collection's items in one sort order, cut into 255 blocks of about equal size: each item's block (by its
 * number) and each block's first (key, id). Built from one walk of the collection's whole-subtree index; kept
 * in step from rank_log (migration 025): items new or edited since are placed again by their key.
 */
interface Rank {
  column: string;
  starts: Array<{ key: string; item: Buffer }>;
  blockOf: Uint8Array;
  sizes: Uint32Array;
  size: number;
  /** The last rank_log row read. */
  seq: number;
  overgrown: boolean;
}

/**
 * Ranks of sort orders, kept in memory: they let a deep page of a selective
 * listing start its walk near the page instead of at the first row. The
 * listing's set (browseBitmaps.ts) is counted per block; the walk starts at
 * the first row of the block holding the page's first item, knowing exactly
 * how many of the set's items come before it. Exactness rests on every item of
 * the set being in the right block: items the log names are placed again before
 * counting, and a rank that fell behind the log's kept rows is built again.
 */
export function rankBlocks(db: Db) {
  const ranks = new Map<string, Rank>();
  const statements = new Map<string, Statement>();
  const prepare: Prepare = (sql) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };

  /** The rank of a collection's sort order, up to date with rank_log, built when missing or fallen behind. */
  const current = (collectionId: string, column: string): Rank | null => {
    const id = `${collectionId}|${column}`;
    const kept = ranks.get(id);
    if (kept && !kept.overgrown && catchUp(prepare, kept)) return kept;
    ranks.delete(id);
    const rank = build(prepare, collectionId, column);
    if (!rank) return null;
    if (ranks.size >= KEPT) ranks.delete(ranks.keys().next().value!);
    ranks.set(id, rank);
    return rank;
  };

  return {
    /**
     * Where a walk for the page at `offset` (in the walk's direction) of the listing whose items are `set`,
     * sorted by `column`, may start: the block holding that page's first item, or null (no rank for this
     * sort key, or the page is in the first block). Call inside the listing's read transaction, and never
     * inside a transaction that writes: a rolled-back write leaves a rank placed by keys that never were.
     */
    cursor(collectionId: string, column: string, set: ItemSet, desc: boolean, offset: number): Cursor | null {
      if (!(column in RANKED)) return null;
      const rank = current(collectionId, column);
      if (!rank) return null;
      const counts = new Uint32Array(BLOCKS);
      const unplaced: number[] = [];
      set.forEachMember((ord) => {
        const block = ord < rank.blockOf.length ? rank.blockOf[ord] : UNPLACED;
        if (block === UNPLACED) unplaced.push(ord);
        else counts[block]++;
      });
      if (unplaced.length && !place(prepare, rank, unplaced)) return null;
      for (const ord of unplaced) counts[rank.blockOf[ord]]++;
      return startOf(rank, counts, desc, offset);
    },
  };
}

type Prepare = (sql: string) => Statement;

/** A collection's rank of `column` from one walk of its root index (null for an empty collection). */
function build(prepare: Prepare, collectionId: string, column: string): Rank | null {
  const root = Buffer.from(pathLabel(collectionId), 'hex');
  const seq = prepare(`SELECT coalesce(max(seq), 0) FROM rank_log`).pluck().get() as number;
  const ords = prepare(
    `SELECT ord FROM media_scope INDEXED BY ${RANKED[column]} WHERE scope = ? AND lvl = 0 ORDER BY ${column}, item`,
  )
    .pluck()
    .all(root) as number[];
  if (ords.length === 0) return null;
  const per = Math.ceil(ords.length / BLOCKS);
  const blockOf = grown(new Uint8Array(0), maxOf(ords) + 1);
  const rank: Rank = {
    column,
    starts: [],
    blockOf,
    sizes: new Uint32Array(BLOCKS),
    size: per,
    seq,
    overgrown: false,
  };
  ords.forEach((ord, i) => {
    const block = Math.floor(i / per);
    rank.blockOf[ord] = block;
    rank.sizes[block]++;
  });
  const keyOf = prepare(
    `SELECT s.${column} AS key, s.item FROM media_ords o CROSS JOIN media_scope s
       WHERE o.ord = ? AND s.item = o.item AND s.scope = ? AND s.lvl = 0`,
  );
  for (let at = 0; at < ords.length; at += per)
    rank.starts.push(keyOf.get(ords[at], root) as { key: string; item: Buffer });
  return rank;
}

/** Marks the items rank_log names since the rank last read it; false when the log no longer reaches back. */
function catchUp(prepare: Prepare, rank: Rank): boolean {
  const log = prepare(`SELECT min(seq) AS first, max(seq) AS last FROM rank_log`).get() as {
    first: number | null;
    last: number | null;
  };
  if ((log.first !== null && log.first > rank.seq + 1) || (log.last ?? 0) < rank.seq) return false;
  for (const [seq, ord] of prepare(`SELECT seq, ord FROM rank_log WHERE seq > ? ORDER BY seq`)
    .raw()
    .iterate(rank.seq) as Iterable<[number, number]>) {
    if (ord < rank.blockOf.length) rank.blockOf[ord] = UNPLACED;
    rank.seq = seq;
  }
  return true;
}

/** Puts each of `ords` in the block its current key falls in; false when one of them has no key. */
function place(prepare: Prepare, rank: Rank, ords: number[]): boolean {
  const rows = prepare(
    `SELECT o.ord, s.${rank.column} AS key, s.item FROM media_ords o CROSS JOIN media_scope s
     WHERE o.ord IN (SELECT value FROM json_each(?)) AND s.item = o.item AND s.lvl = 1`,
  ).all(JSON.stringify(ords)) as Array<{ ord: number; key: string; item: Buffer }>;
  if (rows.length !== ords.length) return false;
  for (const row of rows) {
    const block = blockFor(rank, row.key, row.item);
    if (row.ord >= rank.blockOf.length) rank.blockOf = grown(rank.blockOf, row.ord + 1);
    rank.blockOf[row.ord] = block;
    if (++rank.sizes[block] > OVERGROWN * rank.size) rank.overgrown = true;
  }
  return true;
}

/** The block of the page's first item, as a cursor at its start (ascending) or at the next block's (descending). */
function startOf(rank: Rank, counts: Uint32Array, desc: boolean, offset: number): Cursor | null {
  const last = rank.starts.length - 1;
  let at = 0;
  for (let i = 0; i <= last; i++) {
    const block = desc ? last - i : i;
    if (at + counts[block] > offset) {
      if (i === 0) return null;
      const start = rank.starts[desc ? block + 1 : block];
      return { at, key: start.key, item: start.item, inclusive: !desc };
    }
    at += counts[block];
  }
  return null;
}

/** The last block whose first (key, id) is at or before (key, item); block 0 for anything before them all. */
function blockFor(rank: Rank, key: string, item: Buffer): number {
  let low = 0;
  let high = rank.starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    const start = rank.starts[mid];
    if (compareSortKeys(rank.column, start.key, start.item, key, item) <= 0) low = mid;
    else high = mid - 1;
  }
  return low;
}

function maxOf(values: number[]): number {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  return max;
}

/** `blocks` copied into a longer array (at least `length`), the new places unplaced. */
function grown(blocks: Uint8Array, length: number): Uint8Array {
  const next = new Uint8Array(Math.max(length, Math.ceil(blocks.length * 1.5))).fill(UNPLACED);
  next.set(blocks);
  return next;
}
