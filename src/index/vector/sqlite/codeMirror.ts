import { setImmediate as turn } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { BitCodeMirror, groupKey } from '../bitCodeMirror.js';
import { vecChunkReader, type VecChunkReader } from './vecChunks.js';

type Db = Database.Database;

/** Chunks read per batch of a full load (~100 KB each at 768-d), between turns of the event loop. */
const LOAD_BATCH = 32;

/**
 * Keeps one generation's BitCodeMirror in step with its vec0 table.
 *
 * Writes go through this process's vector index: each row written (after its
 * INSERT) or deleted (before its DELETE) names its chunk here, and the chunks
 * named are read again before the next scan. Reading the committed chunk
 * makes a rolled-back write harmless. Writers elsewhere (another process on
 * the same file) are caught by the row counts: a group whose count differs
 * from the index's own partition count is dropped, reloaded in the background
 * and answered by vec0 until then.
 */
export interface GenCodeMirror {
  /** Notes that a row's chunk changes (call after inserting it and before deleting it). */
  touched(rowid: number): void;
  /** Loads every chunk (once), yielding to the event loop between batches. Resolves false when it does not fit or the layout is unknown. */
  load(): Promise<boolean>;
  /**
   * The mirror, current, when it holds every one of these partition groups
   * with the row counts given; null otherwise (the caller uses vec0).
   */
  ready(groups: Array<{ ds: string; sm: string; rows: number }>): BitCodeMirror | null;
}

export function genCodeMirror(
  db: Db,
  table: string,
  dims: number,
  hasList: boolean,
  budgetBytes: number,
): GenCodeMirror {
  let reader: VecChunkReader | null | undefined;
  const st: MirrorState = {
    db,
    budgetBytes,
    readerOf: () => {
      if (reader === undefined) reader = vecChunkReader(db, table, dims, hasList);
      return reader;
    },
    state: 'none',
    mirror: new BitCodeMirror(dims),
    dirty: new Set<number>(),
    reloading: new Set<string>(),
  };
  return {
    touched: (rowid) => touched(st, rowid),
    load: () => loadAll(st),
    ready: (groups) => readyFor(st, groups),
  };
}

/** One generation's mirror and what keeps it in step. */
interface MirrorState {
  db: Db;
  budgetBytes: number;
  /** The table's chunk reader, made on first use; null when its layout is unknown. */
  readerOf: () => VecChunkReader | null;
  state: 'none' | 'loading' | 'ready' | 'off';
  mirror: BitCodeMirror;
  /** Chunks written since they were read. */
  dirty: Set<number>;
  /** Groups being reloaded in the background. */
  reloading: Set<string>;
}

function touched(st: MirrorState, rowid: number): void {
  if (st.state !== 'loading' && st.state !== 'ready') return;
  const chunk = st.readerOf()?.chunkOf(rowid);
  if (chunk !== null && chunk !== undefined) st.dirty.add(chunk);
}

async function loadAll(st: MirrorState): Promise<boolean> {
  const { db, mirror, budgetBytes } = st;
  if (st.state !== 'none') return st.state === 'ready';
  const r = budgetBytes > 0 ? st.readerOf() : null;
  if (!r) {
    st.state = 'off';
    return false;
  }
  st.state = 'loading';
  try {
    let after = 0;
    for (;;) {
      if (!db.open) return false;
      const batch = r.after(after, LOAD_BATCH);
      for (const c of batch) mirror.put(c);
      if (mirror.size.bytes > budgetBytes) {
        st.state = 'off';
        mirror.clear();
        return false;
      }
      if (batch.length < LOAD_BATCH) break;
      after = batch[batch.length - 1].id;
      await turn();
    }
    // Chunks written during the load are in `dirty`: the next ready() reads them again.
    st.state = 'ready';
    return true;
  } catch (err) {
    st.state = 'off';
    if (db.open) throw err;
    return false;
  }
}

function readyFor(st: MirrorState, groups: Array<{ ds: string; sm: string; rows: number }>): BitCodeMirror | null {
  if (st.state !== 'ready') return null;
  const r = st.readerOf();
  if (!r) return null;
  try {
    refreshDirty(st, r);
  } catch {
    st.state = 'off';
    return null;
  }
  let ok = true;
  for (const g of groups) {
    if (st.mirror.rows(g.ds, g.sm) !== g.rows) {
      ok = false;
      reloadGroup(st, g.ds, g.sm);
    }
  }
  return ok ? st.mirror : null;
}

/** Reads the chunks written since they were read again. */
function refreshDirty(st: MirrorState, r: VecChunkReader): void {
  if (st.dirty.size === 0) return;
  const ids = [...st.dirty];
  st.dirty.clear();
  for (const [id, chunk] of r.byIds(ids)) {
    if (chunk) st.mirror.put(chunk);
    else st.mirror.drop(id);
  }
}

/** Reloads one partition group in the background (once at a time). */
function reloadGroup(st: MirrorState, ds: string, sm: string): void {
  const key = groupKey(ds, sm);
  if (st.reloading.has(key)) return;
  st.reloading.add(key);
  setImmediate(() => {
    try {
      const r = st.readerOf();
      if (!r || st.state !== 'ready' || !st.db.open) return;
      st.mirror.dropGroup(ds, sm);
      for (const c of r.group(ds, sm)) st.mirror.put(c);
    } catch {
      st.state = 'off'; // a layout surprise: vec0 answers from now on
    } finally {
      st.reloading.delete(key);
    }
  });
}
