import type { PgDb } from '../../platform/pgDb.js';
import type { MonthBucket, TimelineStore } from '../timelineStore.js';
import { SORT_KEY, browseFilter } from './browseFilter.js';

/**
 * Month buckets on PostgreSQL: the rows a listing's filter lets through (browseFilter.ts; a whole collection is a
 * range of `media_tree_taken`, migration 030), grouped by the first seven characters of the capture-time key
 * (the capture time, else createdAt's ISO text), as SQLite groups media_scope.taken_at.
 */
export function pgTimelineStore(db: PgDb): TimelineStore {
  return {
    async months(query) {
      const filter = browseFilter(query);
      if (!filter) return [];
      const rows = await db.many<MonthBucket>(
        `SELECT substr(${SORT_KEY.takenAt.expr}, 1, 7) AS month, count(*)::int AS count
         FROM media m WHERE ${filter.where} GROUP BY 1 ORDER BY 1 DESC`,
        filter.params,
      );
      return rows.map((r) => ({ month: r.month, count: Number(r.count) }));
    },
  };
}
