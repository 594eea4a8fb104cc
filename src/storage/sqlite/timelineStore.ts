import type { TimelineStore, MonthBucket } from '../timelineStore.js';
import type { Db } from './database.js';
import { ITEM_ID, probes, scopeFilter, scopeResolver } from './browseFilter.js';
import { statementCache } from './browsePlan.js';

const MEDIA_ID = /^[0-9a-f]{32}$/;

/**
 * Month buckets over media_scope (migration 017): one range of the scope's capture-time index
 * (`media_scope_taken`, 019/022: the capture time, or createdAt where unknown, with type and created_at in the
 * entry), grouped by its first seven characters. The types and date filters are checked inside the index; tags,
 * flags, albums and clusters are probed per row as a listing's walk does (browseFilter.ts).
 */
export function sqliteTimelineStore(db: Db): TimelineStore {
  const resolve = scopeResolver(db);
  const statement = statementCache(db);
  // Leaving out archived items (the default) costs nothing where the collection has none (as browse.ts).
  const anyArchived = db.prepare(`SELECT 1 FROM media WHERE dataset_id = ? AND archived = 1 LIMIT 1`).pluck();
  return {
    async months(asked) {
      const query =
        (asked.archived ?? 'exclude') === 'exclude' && anyArchived.get(asked.collectionId) === undefined
          ? { ...asked, archived: 'include' as const }
          : asked;
      const scope = resolve(query);
      if (!scope) return [];
      if (query.mediaId !== null && !MEDIA_ID.test(query.mediaId)) return [];
      const filter = scopeFilter(query);
      const tags = probes(filter.tags, null);
      const single = query.mediaId !== null ? ` AND ${ITEM_ID} = ?` : '';
      const sql =
        `SELECT substr(s.taken_at, 1, 7) AS month, count(*) AS count FROM media_scope s INDEXED BY media_scope_taken ` +
        `WHERE s.scope = ? AND s.lvl = ?${filter.where}${tags.where}${single} GROUP BY month ORDER BY month DESC`;
      const params = [scope.key, scope.lvl, ...filter.params, ...tags.params];
      if (query.mediaId !== null) params.push(query.mediaId);
      return statement(sql).all(...params) as MonthBucket[];
    },
  };
}
