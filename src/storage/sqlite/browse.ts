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

/** WHERE clause and parameters for a browse query; every filter runs inside SQLite on indexes. */
export function browseWhere(q: BrowseQuery): { where: string; params: unknown[] } {
  const isRoot = !q.path.includes('.');
  // Inside a folder the path already pins the collection; the unary + keeps the
  // planner from choosing the collection-wide index over the folder's.
  const clauses = [`m.status = 'active'`, `m.is_current = 1`, isRoot && q.recursive ? `m.dataset_id = ?` : `+m.dataset_id = ?`];
  const params: unknown[] = [q.datasetId];
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
  for (const [group, values] of Object.entries(q.tagFilters ?? {})) {
    if (values.length === 0) continue;
    clauses.push(
      `m.id IN (SELECT media_id FROM media_tags WHERE dataset_id = ? AND grp = ? AND value IN (${values.map(() => '?').join(', ')}))`,
    );
    params.push(q.datasetId, group, ...values);
  }
  for (const value of q.tagValues ?? []) {
    clauses.push(`m.id IN (SELECT media_id FROM media_tags WHERE dataset_id = ? AND value = ?)`);
    params.push(q.datasetId, value);
  }
  if (q.clusterId) {
    clauses.push(CLUSTER_BROWSE_CLAUSE);
    params.push(q.clusterId.toLowerCase().replace(/-/g, ''));
  }
  return { where: clauses.join(' AND '), params };
}

export function sqliteBrowse(db: Db): Pick<MediaStore, 'browse' | 'folderSummaries' | 'tagGroups'> {
  const countInSubtree = db.prepare(
    `SELECT count(*) FROM media WHERE status = 'active' AND is_current = 1 AND path > ? AND path < ? AND type IN ('image', 'video')`,
  );
  const newestInSubtree = db.prepare(
    `SELECT id FROM media
     WHERE status = 'active' AND is_current = 1 AND path > ? AND path < ? AND type IN ('image', 'video')
     ORDER BY created_at DESC, id DESC`,
  );
  const firstFrame = db.prepare(`SELECT blob_key FROM frames WHERE media_id = ? AND status = 'active' ORDER BY seconds LIMIT 1`);

  return {
    async browse(q) {
      const { where, params } = browseWhere(q);
      const dir = q.sortDirection === 'asc' ? 'ASC' : 'DESC';
      // Ties break by id in the same direction, so pages never overlap or skip.
      const order = `${SORT_SQL[q.sortBy]} ${dir}, m.id ${dir}`;
      const rows = db
        .prepare(`SELECT m.* FROM media m WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`)
        .all(...params, q.limit, q.offset) as MediaRow[];
      const total = db.prepare(`SELECT count(*) FROM media m WHERE ${where}`).pluck().get(...params) as number;
      return { items: rows.map(toMedia), total };
    },

    async folderSummaries(paths) {
      const out = new Map<string, FolderSummary>();
      for (const p of paths) {
        const lo = `${p}.`;
        const hi = `${p}/`;
        const itemCount = countInSubtree.pluck().get(lo, hi) as number;
        // Newest first; items without a frame yet (videos still pending) are passed over.
        const keys: string[] = [];
        for (const id of newestInSubtree.pluck().iterate(lo, hi) as IterableIterator<string>) {
          const key = firstFrame.pluck().get(id) as string | undefined;
          if (key) keys.push(key);
          if (keys.length === 3) break;
        }
        out.set(p, { itemCount, previewBlobKeys: keys });
      }
      return out;
    },

    async tagGroups(datasetId) {
      const rows = db
        .prepare(`SELECT grp, value FROM tag_counts WHERE dataset_id = ? AND count > 0 ORDER BY grp, value`)
        .all(datasetId) as Array<{ grp: string; value: string }>;
      const out: Record<string, string[]> = {};
      for (const r of rows) (out[r.grp] ??= []).push(r.value);
      return out;
    },
  };
}
