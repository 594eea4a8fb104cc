import type { Statement } from 'better-sqlite3';
import type { BrowseQuery } from '../types.js';
import type { Scope } from './browseFilter.js';
import { ItemSet, type ChunkRow } from './itemBitmap.js';

/** A day boundary as the library layer passes it (browse's dateFrom / dateTo): midnight UTC. */
const MIDNIGHT = /^(\d{4}-\d{2}-\d{2})T00:00:00\.000Z$/;

/** The day range of a query's dates, null without dates, undefined when a bound is not a day boundary. */
function dayRange(query: BrowseQuery): { from: string; before: string } | null | undefined {
  if (!query.createdFrom && !query.createdBefore) return null;
  const from = query.createdFrom ? MIDNIGHT.exec(query.createdFrom)?.[1] : '';
  const before = query.createdBefore ? MIDNIGHT.exec(query.createdBefore)?.[1] : '9999-12-31';
  return from === undefined || before === undefined ? undefined : { from, before };
}

/** The bitmaps of days and months per date field: createdAt (021, 023) and the capture time (024). */
const PERIOD_TABLES = {
  createdAt: { days: 'day_bits', months: 'month_bits' },
  takenAt: { days: 'taken_day_bits', months: 'taken_month_bits' },
} as const;

/** The month after `month` (YYYY-MM). */
function nextMonth(month: string): string {
  const [y, m] = month.split('-').map(Number);
  return m === 12 ? `${String(y + 1).padStart(4, '0')}-01` : `${month.slice(0, 4)}-${String(m + 1).padStart(2, '0')}`;
}

/**
 * A day range as the whole months inside it (month_bits, migration 023) and the days of its partial months at
 * either end (day_bits): [from, before) in YYYY-MM-DD, from '' meaning no lower bound.
 */
export function monthsAndDays(from: string, before: string) {
  const firstMonth = !from ? '0000-00' : from.endsWith('-01') ? from.slice(0, 7) : nextMonth(from.slice(0, 7));
  const endMonth = before.slice(0, 7);
  if (firstMonth >= endMonth) return { months: null, days: [{ from, before }] };
  return {
    months: { from: firstMonth, before: endMonth },
    days: [...(from ? [{ from, before: `${firstMonth}-01` }] : []), { from: `${endMonth}-01`, before }].filter(
      (d) => d.from < d.before,
    ),
  };
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * The items a filtered listing keeps, as set arithmetic over the browse
 * bitmaps (migration 021): the scope's items of the wanted types, and every
 * tag group (any of its values), every tag value and the day range (whole
 * months from month_bits, the rest from day_bits). Its size
 * is the exact total; a page tests its rows against it (browsePlan.ts). Null
 * when bitmaps do not answer the query: no tag or date filter (the kept
 * counters do), a face cluster, or dates that are not whole days.
 */
export function bitmapCandidates(prepare: (sql: string) => Statement) {
  const rows = (sql: string, params: unknown[]) => prepare(sql).all(...params) as ChunkRow[];
  const chunks = (sql: string, params: unknown[]): ItemSet => ItemSet.union(rows(sql, params));
  /** The items of a collection created (or taken) in [from, before): whole months' rows, and days' at the ends. */
  const dayUnion = (collectionId: string, field: 'createdAt' | 'takenAt', from: string, before: string): ItemSet => {
    const { months, days } = monthsAndDays(from, before);
    const tables = PERIOD_TABLES[field];
    const found: ChunkRow[] = [];
    if (months)
      found.push(
        ...rows(`SELECT chunk, bits FROM ${tables.months} WHERE dataset_id = ? AND month >= ? AND month < ?`, [
          collectionId,
          months.from,
          months.before,
        ]),
      );
    for (const d of days)
      found.push(
        ...rows(`SELECT chunk, bits FROM ${tables.days} WHERE dataset_id = ? AND day >= ? AND day < ?`, [
          collectionId,
          d.from,
          d.before,
        ]),
      );
    return ItemSet.union(found);
  };
  return (scope: Scope, query: BrowseQuery): ItemSet | null => {
    const days = dayRange(query);
    const groups = Object.entries(query.tagFilters ?? {}).filter(([, values]) => values.length > 0);
    const values = query.tagValues ?? [];
    if (query.clusterId || days === undefined || (days === null && groups.length === 0 && values.length === 0))
      return null;
    const types = query.types ?? [];
    const set = chunks(
      `SELECT chunk, bits FROM scope_bits WHERE scope = ? AND lvl = ?` +
        (types.length ? ` AND type IN (${marks(types.length)})` : ''),
      [scope.key, scope.lvl, ...types],
    );
    for (const [group, wanted] of groups) {
      set.intersect(
        chunks(
          `SELECT chunk, bits FROM tag_bits WHERE dataset_id = ? AND grp = ? AND value IN (${marks(wanted.length)})`,
          [query.collectionId, group, ...wanted],
        ),
      );
    }
    for (const value of values) {
      set.intersect(
        chunks(`SELECT chunk, bits FROM tag_bits INDEXED BY tag_bits_value WHERE dataset_id = ? AND value = ?`, [
          query.collectionId,
          value,
        ]),
      );
    }
    if (days) set.intersect(dayUnion(query.collectionId, query.dateField ?? 'createdAt', days.from, days.before));
    return set;
  };
}
