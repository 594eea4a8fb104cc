import type { TimelineStore, MonthBucket } from '../timelineStore.js';
import type { BrowseQuery } from '../types.js';
import type { Db } from './database.js';
import { ITEM_ID, idFiltered, probes, scopeFilter, scopeResolver, type Scope } from './browseFilter.js';
import { bitmapCandidates } from './browseBitmaps.js';
import { statementCache } from './browsePlan.js';
import { ItemSet, type ChunkRow } from './itemBitmap.js';

const MEDIA_ID = /^[0-9a-f]{32}$/;

/**
 * Month buckets of the capture time on SQLite, two ways:
 *
 * - Without dates, a cluster, an album or a single item (the timeline's own requests): set arithmetic over the
 *   browse bitmaps. The listing's set (the scope's items of the wanted types from `scope_bits`, with the tag and
 *   flag sets, as browseBitmaps.ts builds it) is intersected with each month of `taken_month_bits` (024): about a
 *   hundred months of a handful of 2 KiB chunks, whatever the item count. The month rows may keep items that
 *   are no longer live; `scope_bits` holds exactly the live ones, so the intersection is exact.
 * - Otherwise one range of the scope's capture-time index (`media_scope_taken`, 019/022: the capture time, or
 *   createdAt where unknown, with type and created_at in the entry), grouped by its first seven characters; the
 *   other filters probed per row as a listing's walk does (browseFilter.ts).
 */
export function sqliteTimelineStore(db: Db): TimelineStore {
  const resolve = scopeResolver(db);
  const statement = statementCache(db);
  const candidates = bitmapCandidates(statement);
  // Leaving out archived items (the default) costs nothing where the collection has none (as browse.ts).
  const anyArchived = db.prepare(`SELECT 1 FROM media WHERE dataset_id = ? AND archived = 1 LIMIT 1`).pluck();
  const monthRows = db.prepare(
    `SELECT month, chunk, bits FROM taken_month_bits WHERE dataset_id = ? ORDER BY month DESC`,
  );

  /** The listing's whole set, from the bitmaps (no dates: bitmapCandidates answers null without other filters). */
  const listingSet = (scope: Scope, query: BrowseQuery): ItemSet => {
    const set = candidates(scope, query);
    if (set) return set;
    const types = query.types ?? [];
    const rows = statement(
      `SELECT chunk, bits FROM scope_bits WHERE scope = ? AND lvl = ?` +
        (types.length ? ` AND type IN (${types.map(() => '?').join(', ')})` : ''),
    ).all(scope.key, scope.lvl, ...types) as ChunkRow[];
    return ItemSet.union(rows);
  };

  const byBitmaps = db.transaction((scope: Scope, query: BrowseQuery): MonthBucket[] => {
    const set = listingSet(scope, query);
    const months = new Map<string, ChunkRow[]>();
    for (const row of monthRows.all(query.collectionId) as Array<ChunkRow & { month: string }>) {
      const list = months.get(row.month);
      if (list) list.push(row);
      else months.set(row.month, [row]);
    }
    const out: MonthBucket[] = [];
    for (const [month, rows] of months) {
      const count = ItemSet.union(rows).intersect(set).size();
      if (count > 0) out.push({ month, count });
    }
    return out;
  });

  const byIndex = (scope: Scope, query: BrowseQuery): MonthBucket[] => {
    const filter = scopeFilter(query);
    const tags = probes(filter.tags, null);
    const single = query.mediaId !== null ? ` AND ${ITEM_ID} = ?` : '';
    const sql =
      `SELECT substr(s.taken_at, 1, 7) AS month, count(*) AS count FROM media_scope s INDEXED BY media_scope_taken ` +
      `WHERE s.scope = ? AND s.lvl = ?${filter.where}${tags.where}${single} GROUP BY month ORDER BY month DESC`;
    const params = [scope.key, scope.lvl, ...filter.params, ...tags.params];
    if (query.mediaId !== null) params.push(query.mediaId);
    return statement(sql).all(...params) as MonthBucket[];
  };

  return {
    async months(asked) {
      const query =
        (asked.archived ?? 'exclude') === 'exclude' && anyArchived.get(asked.collectionId) === undefined
          ? { ...asked, archived: 'include' as const }
          : asked;
      const scope = resolve(query);
      if (!scope) return [];
      if (query.mediaId !== null && !MEDIA_ID.test(query.mediaId)) return [];
      const plain = !query.createdFrom && !query.createdBefore && !idFiltered(query) && query.mediaId === null;
      return plain ? byBitmaps(scope, query) : byIndex(scope, query);
    },
  };
}
