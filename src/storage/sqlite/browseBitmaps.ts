import type { Statement } from 'better-sqlite3';
import type { BrowseQuery } from '../types.js';
import { SORT_COLUMN, archivedMode, flagFiltered, idFiltered, type Scope } from './browseFilter.js';
import { ItemSet, type ChunkRow } from './itemBitmap.js';

/** An ISO time in UTC (the library layer passes `toISOString()`'s): its day and its time of day. */
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z$/;
/**
 * Midnight as stored times spell it. Bounds are compared as text, like the stored times: another spelling of
 * midnight ('T00:00:00Z') sorts after '…T00:00:00.000Z', so it is treated as a bound inside the day.
 */
const MIDNIGHT = /^00:00:00\.000$/;

/** The start of `day` (YYYY-MM-DD) as stored times spell it. */
const midnightOf = (day: string): string => `${day}T00:00:00.000Z`;

/** The day after `day` (YYYY-MM-DD). */
const dayAfter = (day: string): string => new Date(Date.parse(midnightOf(day)) + 86_400_000).toISOString().slice(0, 10);

/**
 * The whole days covering a query's dates ([from, before) in YYYY-MM-DD, from '' meaning no lower bound) and
 * the parts of its first and last day that the bounds leave out ([from, before) as times), null without dates,
 * undefined when a bound is not an ISO time.
 */
function dayRange(query: BrowseQuery) {
  if (!query.createdFrom && !query.createdBefore) return null;
  const lower = query.createdFrom ? ISO_TIME.exec(query.createdFrom) : null;
  const upper = query.createdBefore ? ISO_TIME.exec(query.createdBefore) : null;
  if ((query.createdFrom && !lower) || (query.createdBefore && !upper)) return undefined;
  const outside: Array<{ from: string; before: string }> = [];
  if (lower && !MIDNIGHT.test(lower[2])) outside.push({ from: midnightOf(lower[1]), before: lower[0] });
  let before = '9999-12-31';
  if (upper && MIDNIGHT.test(upper[2])) before = upper[1];
  else if (upper) {
    before = dayAfter(upper[1]);
    outside.push({ from: upper[0], before: midnightOf(before) });
  }
  return { from: lower?.[1] ?? '', before, outside };
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
 * months from month_bits, the rest from day_bits; a bound inside a day keeps
 * that day and takes out, from the scope's date index, its items on the far
 * side of the bound), with the favourites (flag_bits, migration 027) and without
 * the archived items, or with those alone, as the query asks. Its size is the exact total; a page tests its rows
 * against it (browsePlan.ts). Null when bitmaps do not answer the query: no
 * tag, date or flag filter (the kept counters do), a face cluster, or a bound that
 * is not an ISO time.
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
    const flags = flagFiltered(query);
    if (
      idFiltered(query) ||
      days === undefined ||
      (days === null && groups.length === 0 && values.length === 0 && !flags)
    )
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
    // Favourites and archived items (migration 027): their sets, per collection.
    const flagSet = (flag: string) =>
      chunks(`SELECT chunk, bits FROM flag_bits WHERE dataset_id = ? AND flag = ?`, [query.collectionId, flag]);
    if (query.favorite === true) set.intersect(flagSet('favorite'));
    const archived = archivedMode(query);
    if (archived === 'only') set.intersect(flagSet('archived'));
    else if (archived === 'exclude') set.subtract(flagSet('archived'));
    if (days) {
      const field = query.dateField ?? 'createdAt';
      set.intersect(dayUnion(query.collectionId, field, days.from, days.before));
      // Bounds inside a day: that day's items on the far side of the bound leave, read from the scope's date index.
      const { column, index } = SORT_COLUMN[field];
      for (const part of days.outside)
        for (const ord of prepare(
          `SELECT s.ord FROM media_scope s INDEXED BY ${index}
           WHERE s.scope = ? AND s.lvl = ? AND s.${column} >= ? AND s.${column} < ?`,
        )
          .pluck()
          .iterate(scope.key, scope.lvl, part.from, part.before) as Iterable<number>)
          set.remove(ord);
    }
    return set;
  };
}
