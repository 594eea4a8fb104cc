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
const collectionOfPath = (p: string) => {
  const h = p.slice(0, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** WHERE clause and parameters for a browse query; every filter runs inside SQLite on indexes. */
export function browseWhere(q: BrowseQuery): { where: string; params: unknown[] } {
  const isRoot = !q.path.includes('.');
  // A path starts with its collection's label, so it pins the collection by
  // itself; only the recursive root listing needs dataset_id (and its index).
  // (A dataset_id term beside a path would either lure the planner onto the
  // collection-wide index or, made unusable with +, force a table read per row.)
  const clauses = [`m.status = 'active'`, `m.is_current = 1`];
  const params: unknown[] = [];
  if (isRoot && q.recursive) {
    clauses.push(`m.dataset_id = ?`);
    params.push(q.collectionId);
  }
  if (!q.recursive) {
    clauses.push(`m.parent_path = ?`);
    params.push(q.path);
  } else if (!isRoot) {
    // Descendants of a folder: a range on the path index. The root needs no range: dataset_id says it.
    clauses.push(`m.path > ? AND m.path < ?`);
    params.push(`${q.path}.`, `${q.path}/`);
  }
  if (q.types && q.types.length) {
    clauses.push(`m.type IN (${q.types.map(() => '?').join(', ')})`);
    params.push(...q.types);
  }
  if (q.createdFrom) {
    clauses.push(`m.created_at >= ?`);
    params.push(q.createdFrom);
  }
  if (q.createdBefore) {
    clauses.push(`m.created_at < ?`);
    params.push(q.createdBefore);
  }
  if (q.mediaId) {
    clauses.push(`m.id = ?`);
    params.push(q.mediaId);
  }
  // EXISTS looks each candidate up by the tag table's primary key (media_id, grp, value)
  // instead of materialising every matching id of the collection per query.
  for (const [group, values] of Object.entries(q.tagFilters ?? {})) {
    if (values.length === 0) continue;
    clauses.push(
      `EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = m.id AND t.grp = ? AND t.value IN (${values.map(() => '?').join(', ')}))`,
    );
    params.push(group, ...values);
  }
  for (const value of q.tagValues ?? []) {
    clauses.push(`EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = m.id AND t.value = ?)`);
    params.push(value);
  }
  if (q.clusterId) {
    clauses.push(CLUSTER_BROWSE_CLAUSE);
    params.push(q.clusterId.toLowerCase().replace(/-/g, ''));
  }
  return { where: clauses.join(' AND '), params };
}

export function sqliteBrowse(db: Db): Pick<MediaStore, 'browse' | 'browseIds' | 'folderSummaries' | 'tagGroups'> {
  const countInSubtree = db.prepare(
    `SELECT count(*) FROM media WHERE status = 'active' AND is_current = 1 AND path > ? AND path < ? AND type IN ('image', 'video')`,
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
  const folderAt = db.prepare(`SELECT 1 FROM media WHERE id = ? AND path = ? AND status = 'active'`);
  const liveCount = db.prepare(`SELECT n FROM live_counts WHERE kind = ? AND key = ?`).pluck();
  /** The listing's total: a kept counter when only the place filters, else a count over the indexes. */
  const countFor = (q: BrowseQuery, where: string, params: unknown[]): number => {
    const onlyPlace =
      !q.types?.length &&
      !q.createdFrom &&
      !q.createdBefore &&
      !q.tagFilters &&
      !q.tagValues?.length &&
      !q.mediaId &&
      !q.clusterId;
    const isRoot = !q.path.includes('.');
    // The counter is keyed by the folder's id, which survives moves: only use it when the folder is really at this path.
    const placeIsCurrent = isRoot || folderAt.get(q.path.slice(-32), q.path) !== undefined;
    if (onlyPlace && !q.recursive && placeIsCurrent)
      return (liveCount.get('children', q.path.slice(-32)) as number | undefined) ?? 0;
    if (onlyPlace && isRoot) return (liveCount.get('dataset', q.collectionId) as number | undefined) ?? 0;
    const groups = Object.entries(q.tagFilters ?? {}).filter(([, v]) => v.length > 0);
    if (groups.length) {
      // Count from the tag index of the most selective group (tag_counts says which) instead of
      // checking every live row of the place: a few thousand candidates rather than the collection.
      const size = ([g, values]: [string, string[]]) =>
        values.reduce((sum, v) => sum + ((tagCount.get(q.collectionId, g, v) as number | undefined) ?? 0), 0);
      const [group, values] = groups.reduce((best, g) => (size(g) < size(best) ? g : best));
      return db
        .prepare(
          `SELECT count(*) FROM (SELECT DISTINCT t.media_id FROM media_tags t WHERE t.dataset_id = ? AND t.grp = ? AND t.value IN (${values.map(() => '?').join(', ')})) c
           JOIN media m ON m.id = c.media_id WHERE ${where}`,
        )
        .pluck()
        .get(q.collectionId, group, ...values, ...params) as number;
    }
    return db
      .prepare(`SELECT count(*) FROM media m WHERE ${where}`)
      .pluck()
      .get(...params) as number;
  };
  const tagCount = db.prepare(`SELECT count FROM tag_counts WHERE dataset_id = ? AND grp = ? AND value = ?`).pluck();
  const firstFrame = db.prepare(
    `SELECT blob_key FROM frames WHERE media_id = ? AND status = 'active' ORDER BY seconds LIMIT 1`,
  );

  return {
    async browse(q) {
      const { where, params } = browseWhere(q);
      const order = (dir: 'ASC' | 'DESC') => `${SORT_SQL[q.sortBy]} ${dir}, m.id ${dir}`;
      const dir = q.sortDirection === 'asc' ? 'ASC' : 'DESC';
      const back = dir === 'ASC' ? 'DESC' : 'ASC';
      // One read transaction: the total and the page come from the same snapshot.
      return db.transaction(() => {
        const total = countFor(q, where, params);
        if (q.offset >= total) return { items: [], total };
        // Ties break by id in the same direction, so pages never overlap or skip.
        // A page past the middle is read from the other end (fewer index entries
        // to step over), then put back in order.
        let rows: MediaRow[];
        if (q.offset > total / 2) {
          const n = Math.min(q.limit, total - q.offset);
          rows = (
            db
              .prepare(`SELECT m.* FROM media m WHERE ${where} ORDER BY ${order(back)} LIMIT ? OFFSET ?`)
              .all(...params, n, total - q.offset - n) as MediaRow[]
          ).reverse();
        } else {
          rows = db
            .prepare(`SELECT m.* FROM media m WHERE ${where} ORDER BY ${order(dir)} LIMIT ? OFFSET ?`)
            .all(...params, q.limit, q.offset) as MediaRow[];
        }
        return { items: rows.map(toMedia), total };
      })();
    },

    async browseIds(q, cap) {
      const { where, params } = browseWhere(q);
      return db
        .prepare(`SELECT m.id FROM media m WHERE ${where} LIMIT ?`)
        .pluck()
        .all(...params, cap) as string[];
    },

    async folderSummaries(paths) {
      const out = new Map<string, FolderSummary>();
      for (const p of paths) {
        const lo = `${p}.`;
        const hi = `${p}/`;
        const itemCount = countInSubtree.pluck().get(lo, hi) as number;
        // Items without a frame yet (videos still pending) are passed over.
        const pick = (ids: string[]) =>
          ids
            .map((id) => firstFrame.pluck().get(id) as string | undefined)
            .filter((k): k is string => !!k)
            .slice(0, 3);
        let keys = pick(recentInSubtree.pluck().all(collectionOfPath(p), lo, hi) as string[]);
        if (keys.length < 3 && itemCount > keys.length)
          keys = [...new Set([...keys, ...pick(firstInSubtree.pluck().all(lo, hi) as string[])])].slice(0, 3);
        out.set(p, { itemCount, previewBlobKeys: keys });
      }
      return out;
    },

    async tagGroups(collectionId) {
      const rows = db
        .prepare(`SELECT grp, value FROM tag_counts WHERE dataset_id = ? AND count > 0 ORDER BY grp, value`)
        .all(collectionId) as Array<{ grp: string; value: string }>;
      const out: Record<string, string[]> = {};
      for (const r of rows) (out[r.grp] ??= []).push(r.value);
      return out;
    },
  };
}
