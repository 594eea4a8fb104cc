import type { PgDb } from '../../platform/pgDb.js';
import { toMedia } from '../sqlite/rows.js';
import type { MediaStore } from '../storage.js';
import { browseFilter, orderBy } from './browseFilter.js';
import { MEDIA_COLUMNS, type MediaRowWithText } from './mediaRows.js';

/**
 * Listings on PostgreSQL: one statement gives the total and the page's ids from one snapshot, over the
 * partial btree indexes of migration 030 (one level: (parent_path, key, id); a subtree: (dataset_id, key,
 * id) with `path <@`, or the GiST index on path and a sort when the subtree is small); then the page's rows.
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
      const listing = await db.one<{ total: number; ids: string[] }>(
        `SELECT (SELECT count(*) FROM media m WHERE ${filter.where}) AS total,
           ARRAY(SELECT m.id FROM media m WHERE ${filter.where}
                 ORDER BY ${orderBy(query.sortBy, query.sortDirection)} LIMIT $${n + 1} OFFSET $${n + 2}) AS ids`,
        [...filter.params, query.limit, query.offset],
      );
      const { total, ids } = listing!;
      if (ids.length === 0) return { items: [], total };
      // One read of the page's rows, put back in the listing's order.
      const rows = await db.many<MediaRowWithText>(`SELECT ${MEDIA_COLUMNS} FROM media WHERE id = ANY($1::text[])`, [
        ids,
      ]);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return { items: ids.map((id) => toMedia(byId.get(id)!)), total };
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
