import type { MediaStore } from '../storage.js';
import type { BrowseQuery, FolderSummary, SortField } from '../types.js';
import type { Db } from './database.js';
import { toMedia, type MediaRow } from './rows.js';
import { CLUSTER_BROWSE_CLAUSE } from './clusterStore.js';

const SORT_SQL: Record<SortField, string> = {
  createdAt: 'm.created_at',
  name: 'm.name COLLATE NOCASE',
  type: 'm.type',
  description: 'm.description',
  prompt: 'm.prompt',
};

/** How many of a collection's newest items a folder-preview lookup may step through. */
const PREVIEW_SCAN = 2000;

/** The collection id (hyphenated) from a path's first label. */
const collectionOfPath = (path: string) => {
  const h = path.slice(0, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** WHERE clause and parameters for a browse query; every filter runs inside SQLite on indexes. */
export function browseWhere(query: BrowseQuery): { where: string; params: unknown[] } {
  const isRoot = !query.path.includes('.');
  // A path starts with its collection's label, so it pins the collection by
  // itself; only the recursive root listing needs dataset_id (and its index).
  // (A dataset_id term beside a path would either lure the planner onto the
  // collection-wide index or, made unusable with +, force a table read per row.)
  const clauses = [`m.status = 'active'`, `m.is_current = 1`];
  const params: unknown[] = [];
  if (isRoot && query.recursive) {
    clauses.push(`m.dataset_id = ?`);
    params.push(query.collectionId);
  }
  if (!query.recursive) {
    clauses.push(`m.parent_path = ?`);
    params.push(query.path);
  } else if (!isRoot) {
    // Descendants of a folder: a range on the path index. The root needs no range: dataset_id says it.
    clauses.push(`m.path > ? AND m.path < ?`);
    params.push(`${query.path}.`, `${query.path}/`);
  }
  if (query.types && query.types.length) {
    clauses.push(`m.type IN (${query.types.map(() => '?').join(', ')})`);
    params.push(...query.types);
  }
  if (query.createdFrom) {
    clauses.push(`m.created_at >= ?`);
    params.push(query.createdFrom);
  }
  if (query.createdBefore) {
    clauses.push(`m.created_at < ?`);
    params.push(query.createdBefore);
  }
  if (query.mediaId) {
    clauses.push(`m.id = ?`);
    params.push(query.mediaId);
  }
  // EXISTS looks each candidate up by the tag table's primary key (media_id, grp, value)
  // instead of materialising every matching id of the collection per query.
  for (const [group, values] of Object.entries(query.tagFilters ?? {})) {
    if (values.length === 0) continue;
    clauses.push(
      `EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = m.id AND t.grp = ? AND t.value IN (${values.map(() => '?').join(', ')}))`,
    );
    params.push(group, ...values);
  }
  for (const value of query.tagValues ?? []) {
    clauses.push(`EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = m.id AND t.value = ?)`);
    params.push(value);
  }
  if (query.clusterId) {
    clauses.push(CLUSTER_BROWSE_CLAUSE);
    params.push(query.clusterId.toLowerCase().replace(/-/g, ''));
  }
  return { where: clauses.join(' AND '), params };
}

/** The statements behind listing totals, prepared once per store. */
function countStatements(db: Db) {
  return {
    folderAt: db.prepare(`SELECT 1 FROM media WHERE id = ? AND path = ? AND status = 'active'`),
    liveCount: db.prepare(`SELECT n FROM live_counts WHERE kind = ? AND key = ?`).pluck(),
    tagCount: db.prepare(`SELECT count FROM tag_counts WHERE dataset_id = ? AND grp = ? AND value = ?`).pluck(),
  };
}

/** The listing's total: a kept counter when only the place filters, else a count over the indexes. */
function countListing(
  db: Db,
  { folderAt, liveCount, tagCount }: ReturnType<typeof countStatements>,
  query: BrowseQuery,
  where: string,
  params: unknown[],
): number {
  const onlyPlace =
    !query.types?.length &&
    !query.createdFrom &&
    !query.createdBefore &&
    !query.tagFilters &&
    !query.tagValues?.length &&
    !query.mediaId &&
    !query.clusterId;
  const isRoot = !query.path.includes('.');
  // The counter is keyed by the folder's id, which survives moves: only use it when the folder is really at this path.
  const placeIsCurrent = isRoot || folderAt.get(query.path.slice(-32), query.path) !== undefined;
  if (onlyPlace && !query.recursive && placeIsCurrent)
    return (liveCount.get('children', query.path.slice(-32)) as number | undefined) ?? 0;
  if (onlyPlace && isRoot) return (liveCount.get('dataset', query.collectionId) as number | undefined) ?? 0;
  const groups = Object.entries(query.tagFilters ?? {}).filter(([, values]) => values.length > 0);
  if (groups.length) {
    // Count from the tag index of the most selective group (tag_counts says which) instead of
    // checking every live row of the place: a few thousand candidates rather than the collection.
    const size = ([group, values]: [string, string[]]) =>
      values.reduce(
        (sum, value) => sum + ((tagCount.get(query.collectionId, group, value) as number | undefined) ?? 0),
        0,
      );
    const [group, values] = groups.reduce((best, candidate) => (size(candidate) < size(best) ? candidate : best));
    return db
      .prepare(
        `SELECT count(*) FROM (SELECT DISTINCT t.media_id FROM media_tags t
           WHERE t.dataset_id = ? AND t.grp = ? AND t.value IN (${values.map(() => '?').join(', ')})) c
         JOIN media m ON m.id = c.media_id WHERE ${where}`,
      )
      .pluck()
      .get(query.collectionId, group, ...values, ...params) as number;
  }
  return db
    .prepare(`SELECT count(*) FROM media m WHERE ${where}`)
    .pluck()
    .get(...params) as number;
}

/**
 * One page of a listing of `total` rows. Ties break by id in the same
 * direction, so pages never overlap or skip. A page past the middle is read
 * from the other end (fewer index entries to step over), then put back in order.
 */
function readPage(db: Db, query: BrowseQuery, where: string, params: unknown[], total: number): MediaRow[] {
  const order = (dir: 'ASC' | 'DESC') => `${SORT_SQL[query.sortBy]} ${dir}, m.id ${dir}`;
  const dir = query.sortDirection === 'asc' ? 'ASC' : 'DESC';
  const back = dir === 'ASC' ? 'DESC' : 'ASC';
  if (query.offset > total / 2) {
    const n = Math.min(query.limit, total - query.offset);
    return (
      db
        .prepare(`SELECT m.* FROM media m WHERE ${where} ORDER BY ${order(back)} LIMIT ? OFFSET ?`)
        .all(...params, n, total - query.offset - n) as MediaRow[]
    ).reverse();
  }
  return db
    .prepare(`SELECT m.* FROM media m WHERE ${where} ORDER BY ${order(dir)} LIMIT ? OFFSET ?`)
    .all(...params, query.limit, query.offset) as MediaRow[];
}

/** Up to 3 preview blob keys and the item count of each folder. */
function folderSummaries(db: Db): Pick<MediaStore, 'folderSummaries'> {
  const countInSubtree = db.prepare(
    `SELECT count(*) FROM media
     WHERE status = 'active' AND is_current = 1 AND path > ? AND path < ? AND type IN ('image', 'video')`,
  );
  // Previews, newest first: walk the collection's newest live items (bounded) and keep
  // those inside the folder; a folder with nothing that recent falls back to path order.
  const recentInSubtree = db.prepare(
    `SELECT id FROM (
       SELECT id, path, type FROM media INDEXED BY media_live_dataset_created
       WHERE dataset_id = ? AND status = 'active' AND is_current = 1
       ORDER BY created_at DESC, id DESC LIMIT ${PREVIEW_SCAN}
     ) WHERE path > ? AND path < ? AND type IN ('image', 'video') LIMIT 6`,
  );
  const firstInSubtree = db.prepare(
    `SELECT id FROM media
     WHERE status = 'active' AND is_current = 1 AND path > ? AND path < ? AND type IN ('image', 'video')
     ORDER BY path LIMIT 6`,
  );
  const firstFrame = db.prepare(
    `SELECT blob_key FROM frames WHERE media_id = ? AND status = 'active' ORDER BY seconds LIMIT 1`,
  );
  return {
    async folderSummaries(paths) {
      const out = new Map<string, FolderSummary>();
      for (const path of paths) {
        const lo = `${path}.`;
        const hi = `${path}/`;
        const itemCount = countInSubtree.pluck().get(lo, hi) as number;
        // Items without a frame yet (videos still pending) are passed over.
        const pick = (ids: string[]) =>
          ids
            .map((id) => firstFrame.pluck().get(id) as string | undefined)
            .filter((key): key is string => !!key)
            .slice(0, 3);
        let keys = pick(recentInSubtree.pluck().all(collectionOfPath(path), lo, hi) as string[]);
        if (keys.length < 3 && itemCount > keys.length)
          keys = [...new Set([...keys, ...pick(firstInSubtree.pluck().all(lo, hi) as string[])])].slice(0, 3);
        out.set(path, { itemCount, previewBlobKeys: keys });
      }
      return out;
    },
  };
}

export function sqliteBrowse(db: Db): Pick<MediaStore, 'browse' | 'browseIds' | 'folderSummaries' | 'tagGroups'> {
  const counts = countStatements(db);
  return {
    async browse(query) {
      const { where, params } = browseWhere(query);
      // One read transaction: the total and the page come from the same snapshot.
      return db.transaction(() => {
        const total = countListing(db, counts, query, where, params);
        if (query.offset >= total) return { items: [], total };
        return { items: readPage(db, query, where, params, total).map(toMedia), total };
      })();
    },

    async browseIds(query, cap) {
      const { where, params } = browseWhere(query);
      return db
        .prepare(`SELECT m.id FROM media m WHERE ${where} LIMIT ?`)
        .pluck()
        .all(...params, cap) as string[];
    },

    ...folderSummaries(db),

    async tagGroups(collectionId) {
      const rows = db
        .prepare(`SELECT grp, value FROM tag_counts WHERE dataset_id = ? AND count > 0 ORDER BY grp, value`)
        .all(collectionId) as Array<{ grp: string; value: string }>;
      const out: Record<string, string[]> = {};
      for (const row of rows) (out[row.grp] ??= []).push(row.value);
      return out;
    },
  };
}
