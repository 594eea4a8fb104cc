/**
 * Planning a query's first pass: which partitions, or which coarse lists of
 * them, it scans. pickLists is the decision for one partition, pure;
 * planParts applies it to every partition of a query.
 */
import { probeRowsFor, rankLists, residual } from '../ivf.js';
import type { VectorSearchInfo } from '../types.js';
import { listsOf } from './registry.js';
import type { Generation, VectorIndexState } from './state.js';

/** A probe that would read this fraction of a collection's rows scans the whole partition (one KNN statement, not one a list). */
const WHOLE_PARTITION_FRACTION = 0.5;

/** What one first-pass KNN statement scans: a collection's partition, one of its lists or (null) all of them. */
export interface Part {
  ds: string;
  list: number | null;
  rows: number;
}

export interface ListChoice {
  /** Scan the whole partition (no lists given, most of the lists, or most of the rows). */
  whole: boolean;
  /** Otherwise these lists, nearest first, with their rows. */
  lists: Array<{ list: number; rows: number }>;
}

/**
 * The lists of one partition to scan: the nearest non-empty ones (`ranked`,
 * nearest first) until they hold `target` rows and at least `minProbe` lists,
 * or exactly `probe` lists when given. When that is every non-empty list, or
 * (without `probe`) at least half the partition's rows, one scan of the whole
 * partition costs less than one statement a list.
 */
export function pickLists(
  ranked: number[],
  rowsOf: Map<number, number>,
  partitionRows: number,
  target: number,
  minProbe: number,
  probe: number | undefined,
): ListChoice {
  const chosen: Array<{ list: number; rows: number }> = [];
  let covered = 0;
  let nonEmpty = 0;
  for (const list of ranked) {
    const rows = rowsOf.get(list) ?? 0;
    if (rows <= 0) continue;
    nonEmpty++;
    const enough = probe !== undefined ? chosen.length >= probe : covered >= target && chosen.length >= minProbe;
    if (enough) continue;
    chosen.push({ list, rows });
    covered += rows;
  }
  const whole =
    chosen.length >= nonEmpty || (probe === undefined && covered >= partitionRows * WHOLE_PARTITION_FRACTION);
  return { whole, lists: whole ? [] : chosen };
}

/**
 * What the first pass scans for `want` candidates: per collection, the whole
 * partition (no lists, or probe = Infinity), or its lists nearest to the
 * query until they hold probeRowsFor(rows, want) rows and at least
 * ivfMinProbe lists (or exactly `probe` lists when given). `subset`: some
 * partition is scanned only in part.
 */
export function planParts(
  state: VectorIndexState,
  gen: Generation,
  unit: Float32Array,
  full: Part[],
  sm: string,
  want: number,
  probe: number | undefined,
  info: VectorSearchInfo,
): { parts: Part[]; subset: boolean } {
  const parts: Part[] = [];
  let subset = false;
  let queryResidual: Float32Array | null = null;
  for (const part of full) {
    const lists = probe === Infinity ? null : listsOf(gen, part.ds, sm);
    if (!lists) {
      parts.push(part);
      continue;
    }
    const rowsOf = new Map<number, number>();
    for (const row of gen.listSql!.listRows.all(part.ds, sm) as Array<{ list: number; rows: number }>)
      rowsOf.set(row.list, row.rows);
    const target = probeRowsFor(part.rows, want, state.tuning.probePolicy);
    queryResidual ??= residual(unit, gen.center);
    const ranked = rankLists(lists.centroids, lists.count, queryResidual);
    const choice = pickLists(ranked, rowsOf, part.rows, target, state.tuning.ivfMinProbe, probe);
    if (choice.whole) parts.push(part);
    else {
      subset = true;
      info.lists += choice.lists.length;
      for (const chosen of choice.lists) parts.push({ ds: part.ds, list: chosen.list, rows: chosen.rows });
    }
  }
  info.scanned = parts.reduce((a, x) => a + x.rows, 0);
  return { parts, subset };
}
