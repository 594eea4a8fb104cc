import type { Statement } from 'better-sqlite3';
import type { BrowseQuery } from '../types.js';
import type { Scope } from './browseFilter.js';
import { ItemSet, type ChunkRow } from './itemBitmap.js';

/** A day boundary as the library layer passes it (browse's dateFrom / dateTo): midnight UTC. */
const MIDNIGHT = /^(\d{4}-\d{2}-\d{2})T00:00:00\.000Z$/;

/** The day range of a query's dates, null without dates, undefined when a bound is not a day boundary. */
function dayRange(query: BrowseQuery): { from: string; before: string } | null | undefined {
  if (!query.createdFrom && !query.createdBefore) return null;
  // Days are kept for createdAt only; a capture-time range is read from media_scope_taken.
  if ((query.dateField ?? 'createdAt') !== 'createdAt') return undefined;
  const from = query.createdFrom ? MIDNIGHT.exec(query.createdFrom)?.[1] : '';
  const before = query.createdBefore ? MIDNIGHT.exec(query.createdBefore)?.[1] : '9999-12-31';
  return from === undefined || before === undefined ? undefined : { from, before };
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * The items a filtered listing keeps, as set arithmetic over the browse
 * bitmaps (migration 021): the scope's items of the wanted types, and every
 * tag group (any of its values), every tag value and the day range. Its size
 * is the exact total; a page tests its rows against it (browsePlan.ts). Null
 * when bitmaps do not answer the query: no tag or date filter (the kept
 * counters do), a face cluster, dates that are not whole days, or a range of
 * capture times.
 */
export function bitmapCandidates(prepare: (sql: string) => Statement) {
  const chunks = (sql: string, params: unknown[]): ItemSet => ItemSet.union(prepare(sql).all(...params) as ChunkRow[]);
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
    if (days) {
      set.intersect(
        chunks(`SELECT chunk, bits FROM day_bits WHERE dataset_id = ? AND day >= ? AND day < ?`, [
          query.collectionId,
          days.from,
          days.before,
        ]),
      );
    }
    return set;
  };
}
