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
  const readerOf = () => {
    if (reader === undefined) reader = vecChunkReader(db, table, dims, hasList);
    return reader;
  };
  let state: 'none' | 'loading' | 'ready' | 'off' = 'none';
  const mirror = new BitCodeMirror(dims);
  const dirty = new Set<number>();
  const reloading = new Set<string>();

  const refreshDirty = (r: VecChunkReader) => {
    if (dirty.size === 0) return;
    const ids = [...dirty];
    dirty.clear();
    for (const [id, chunk] of r.byIds(ids)) {
      if (chunk) mirror.put(chunk);
      else mirror.drop(id);
    }
  };

  const reloadGroup = (ds: string, sm: string) => {
    const key = groupKey(ds, sm);
    if (reloading.has(key)) return;
    reloading.add(key);
    setImmediate(() => {
      try {
        const r = readerOf();
        if (!r || state !== 'ready' || !db.open) return;
        mirror.dropGroup(ds, sm);
        for (const c of r.group(ds, sm)) mirror.put(c);
      } catch {
        state = 'off'; // a layout surprise: vec0 answers from now on
      } finally {
        reloading.delete(key);
      }
    });
  };

  return {
    touched: (rowid) => {
      if (state !== 'loading' && state !== 'ready') return;
      const chunk = readerOf()?.chunkOf(rowid);
      if (chunk !== null && chunk !== undefined) dirty.add(chunk);
    },
    load: async () => {
      if (state !== 'none') return state === 'ready';
      const r = budgetBytes > 0 ? readerOf() : null;
      if (!r) {
        state = 'off';
        return false;
      }
      state = 'loading';
      try {
        let after = 0;
        for (;;) {
          if (!db.open) return false;
          const batch = r.after(after, LOAD_BATCH);
          for (const c of batch) mirror.put(c);
          if (mirror.size.bytes > budgetBytes) {
            state = 'off';
            mirror.clear();
            return false;
          }
          if (batch.length < LOAD_BATCH) break;
          after = batch[batch.length - 1].id;
          await turn();
        }
        // Chunks written during the load are in `dirty`: the next ready() reads them again.
        state = 'ready';
        return true;
      } catch (err) {
        state = 'off';
        if (db.open) throw err;
        return false;
      }
    },
    ready: (groups) => {
      if (state !== 'ready') return null;
      const r = readerOf();
      if (!r) return null;
      try {
        refreshDirty(r);
      } catch {
        state = 'off';
        return null;
      }
      let ok = true;
      for (const g of groups) {
        if (mirror.rows(g.ds, g.sm) !== g.rows) {
          ok = false;
          reloadGroup(g.ds, g.sm);
        }
      }
      return ok ? mirror : null;
    },
  };
}
