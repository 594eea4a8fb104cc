import type { PgDb } from '../../platform/pgDb.js';
import { toMedia } from '../sqlite/rows.js';
import type { MediaStore } from '../storage.js';
import { browseFilter, orderBy } from './browseFilter.js';
import { mediaColumns, type MediaRowWithText } from './mediaRows.js';

/**
 * Listings on PostgreSQL: one statement gives the total and the page's ids from one snapshot, over the
 * partial btree indexes of migration 030 (one level: (parent_path, key, id); a subtree: (dataset_id, key,
 * id) with `path <@`, or the GiST index on path and a sort when the subtree is small), and the page's rows.
 *
 * Where this falls short at millions of items (to be measured): the total is a count(*) of every matching
 * row (SQLite keeps counters and bitmaps instead), and a deep OFFSET steps over every row before the page.
 * Tag and date filters are checked per row of the walk.
 */
export function pgBrowse(db: PgDb): Pick<MediaStore, 'browse' | 'browseIds'> {
  return {
    async browse(query) {
      const filter = browseFilter(query);
      if (!filter) return { items: [], total: 0 };
      const n = filter.params.length;
      // The page's ids in order (ARRAY keeps the subquery's order), then their rows in that order; the
      // total rides on every row (one row of nulls when the page is empty).
      const rows = await db.many<MediaRowWithText & { total: number; n: number | null }>(
        `WITH page AS (
           SELECT (SELECT count(*) FROM media m WHERE ${filter.where}) AS total,
             ARRAY(SELECT m.id FROM media m WHERE ${filter.where}
                   ORDER BY ${orderBy(query.sortBy, query.sortDirection)} LIMIT $${n + 1} OFFSET $${n + 2}) AS ids
         )
         SELECT page.total, u.n, ${mediaColumns('m')}
         FROM page
         LEFT JOIN LATERAL unnest(page.ids) WITH ORDINALITY AS u(id, n) ON true
         LEFT JOIN media m ON m.id = u.id
         ORDER BY u.n`,
        [...filter.params, query.limit, query.offset],
      );
      const total = rows[0]?.total ?? 0;
      return { items: rows.filter((row) => row.n !== null).map(toMedia), total };
    },

    async browseIds(query, cap) {
      const filter = browseFilter(query);
      if (!filter) return [];
      const rows = await db.many<{ id: string }>(
        `SELECT m.id FROM media m WHERE ${filter.where} LIMIT $${filter.params.length + 1}`,
        [...filter.params, cap],
      );
      return rows.map((r) => r.id);
    },
  };
}
