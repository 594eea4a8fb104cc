import type { MediaStore } from '../storage.js';
import type { BrowseQuery } from '../types.js';
import type { Db } from './database.js';
import { toMedia, type MediaRow } from './rows.js';
import { rowReader } from './rowReader.js';
import { MEDIA_COLUMNS } from './mediaReads.js';
import { scopeFilter, scopeResolver } from './browseFilter.js';
import { browsePlanner, type PlannerTuning } from './browsePlan.js';
import { folderSummaries } from './folderSummaries.js';

const MEDIA_ID = /^[0-9a-f]{32}$/;

/**
 * Listings over media_scope (migration 017, src/storage/sqlite/SCHEMA.md):
 * every folder level and every subtree, in each sort order, is a range of one
 * index, so a page at any offset steps over index entries only, never sorts the
 * place; the total comes from a kept counter when only the place and the types
 * filter. browsePlan.ts decides how each total and page is read.
 */
export function sqliteBrowse(
  db: Db,
  tuning: PlannerTuning = {},
): Pick<MediaStore, 'browse' | 'browseIds' | 'folderSummaries' | 'tagGroups'> {
  const resolve = scopeResolver(db);
  const plan = browsePlanner(db, tuning);
  // Leaving out archived items (the default) costs nothing where the collection has none (migration 027).
  const anyArchived = db.prepare(`SELECT 1 FROM media WHERE dataset_id = ? AND archived = 1 LIMIT 1`).pluck();
  const effective = (query: BrowseQuery): BrowseQuery =>
    (query.archived ?? 'exclude') === 'exclude' && anyArchived.get(query.collectionId) === undefined
      ? { ...query, archived: 'include' }
      : query;
  const rowsByIds = rowReader<MediaRow>(db, MEDIA_COLUMNS, `FROM media WHERE id IN (SELECT value FROM json_each(?))`);

  /** The page's ids and the total, from one snapshot (`ranked`: not inside a caller's transaction). */
  const listing = db.transaction((asked: BrowseQuery, ranked: boolean): { ids: string[]; total: number } => {
    const query = effective(asked);
    const scope = resolve(query);
    if (!scope) return { ids: [], total: 0 };
    const filter = scopeFilter(query);
    if (query.mediaId !== null) {
      if (!MEDIA_ID.test(query.mediaId)) return { ids: [], total: 0 };
      const found = plan.single(scope, query.mediaId, filter);
      return { ids: query.offset === 0 ? found.slice(0, query.limit) : [], total: found.length };
    }
    const all = plan.scopeSize(scope);
    if (all === 0) return { ids: [], total: 0 };
    const set = plan.candidates(scope, query);
    if (set) {
      const total = set.size();
      return { ids: query.offset >= total ? [] : plan.pageOfSet(scope, query, filter, set, total, ranked), total };
    }
    const total = plan.count(scope, query, filter, all);
    if (query.offset >= total) return { ids: [], total };
    return { ids: plan.page(scope, query, filter, total, all), total };
  });

  return {
    async browse(query) {
      const { ids, total } = listing(query, !db.inTransaction);
      if (ids.length === 0) return { items: [], total };
      // One read of the page's rows, put back in the listing's order.
      const byId = new Map(rowsByIds(JSON.stringify(ids)).map((row) => [row.id, row]));
      return { items: ids.map((id) => toMedia(byId.get(id)!)), total };
    },

    async browseIds(asked, cap) {
      const query = effective(asked);
      const scope = resolve(query);
      if (!scope) return [];
      if (query.mediaId !== null) {
        return MEDIA_ID.test(query.mediaId) ? plan.single(scope, query.mediaId, scopeFilter(query)).slice(0, cap) : [];
      }
      return plan.ids(scope, scopeFilter(query), cap);
    },

    ...folderSummaries(db),

    async tagGroups(collectionId) {
      const rows = db
        .prepare(`SELECT grp, value FROM tag_counts WHERE dataset_id = ? AND count > 0 ORDER BY grp, value`)
        .all(collectionId) as Array<{ grp: string; value: string }>;
      // Group names are user strings (`constructor`, `__proto__`): gathered in a Map, then own properties.
      const out = new Map<string, string[]>();
      for (const row of rows) {
        const values = out.get(row.grp);
        if (values) values.push(row.value);
        else out.set(row.grp, [row.value]);
      }
      return Object.fromEntries(out);
    },
  };
}
