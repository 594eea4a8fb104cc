import type { BrowseQuery, SortField } from '../types.js';
import { pathLabel } from '../../platform/ids.js';
import type { Db } from './database.js';
import { placeClause, placeFiltered } from './placeFilter.js';

/**
 * Where a listing reads: one scope of media_scope (migration 017), the 16
 * bytes of a folder id or of the collection label, and the level: 1 for the
 * folder's own level, 0 for its whole subtree.
 */
export interface Scope {
  key: Buffer;
  lvl: 0 | 1;
}

const LABEL = /^[0-9a-f]{32}$/;

/**
 * The scope of a query, or null when the path names no live folder of the
 * collection (then the listing is empty). Scopes are keyed by folder id, which
 * survives moves: a path the folder has left must not list its new contents.
 */
export function scopeResolver(db: Db): (query: BrowseQuery) => Scope | null {
  const folderAt = db
    .prepare(`SELECT 1 FROM media WHERE id = ? AND path = ? AND status = 'active' AND type = 'folder'`)
    .pluck();
  return (query) => {
    const labels = query.path.split('.');
    if (!labels.every((label) => LABEL.test(label)) || labels[0] !== pathLabel(query.collectionId)) return null;
    const last = labels[labels.length - 1];
    if (labels.length > 1 && folderAt.get(last, query.path) === undefined) return null;
    return { key: Buffer.from(last, 'hex'), lvl: query.recursive ? 0 : 1 };
  };
}

/** The media_scope column and index behind each sort field. */
export const SORT_COLUMN: Record<SortField, { column: string; index: string; nullable?: true }> = {
  createdAt: { column: 'created_at', index: 'media_scope_created' },
  name: { column: 'name', index: 'media_scope_name' },
  type: { column: 'type', index: 'media_scope_type' },
  description: { column: 'description', index: 'media_scope_description', nullable: true },
  prompt: { column: 'prompt', index: 'media_scope_prompt', nullable: true },
  // coalesce(taken_at, created_at) in media (migration 019): the capture time, or the upload time without one.
  takenAt: { column: 'taken_at', index: 'media_scope_taken' },
};

/** The text id of a media_scope row (alias s). */
export const ITEM_ID = `lower(hex(s.item))`;

/**
 * One tag condition: an EXISTS probe of media_tags' primary key per candidate
 * row, or, as the driver of a listing, the distinct items of the condition
 * read from the tag index (`drive`). How many items carry it (`size`, from
 * tag_counts) is what the planner in browsePlan.ts weighs against the scope.
 */
export interface TagTerm {
  probe: string;
  drive: string;
  params: unknown[];
  driveParams: unknown[];
  /** Items of the collection carrying the tag (an upper bound: an item with two of a group's values counts twice). */
  size: string;
  sizeParams: unknown[];
}

/** SQL over media_scope s: the filters other than the place and the tags, checked inside the sort index. */
export interface ScopeFilter {
  /** `AND …` clauses on s (types, dates, cluster), possibly empty. */
  where: string;
  params: unknown[];
  tags: TagTerm[];
  /** Whether only the place and the types filter (the total is then a kept counter). */
  countable: boolean;
  /** The index whose range the date filter is (the capture time's or createdAt's): totals and id lists walk it. */
  dateIndex: string;
  /** `where` and `params` without the date and flag clauses (for a walk whose set has them already). */
  undated: { where: string; params: unknown[] };
  /** `where` and `params` without the flag clauses (a walk whose set has them, and whose range is the dates). */
  unflagged: { where: string; params: unknown[] };
}

/** How a query treats archived items: absent means the default views' `exclude`. */
export const archivedMode = (query: BrowseQuery) => query.archived ?? 'exclude';

/** Whether the query filters by the flags (migration 027): favourites only, or archived items left out or alone. */
export const flagFiltered = (query: BrowseQuery): boolean =>
  query.favorite === true || archivedMode(query) !== 'include';

/** Whether a cluster or an album narrows the listing (sets of ids no bitmap holds). */
export const idFiltered = (query: BrowseQuery): boolean =>
  !!(query.clusterId || query.albumId) || placeFiltered(query.places);

/** The filters of a browse query over media_scope; mediaId is the caller's (a single-row probe). */
export function scopeFilter(query: BrowseQuery): ScopeFilter {
  const clauses: Array<{ sql: string; params: unknown[]; date?: true; flag?: true }> = [];
  if (query.types && query.types.length)
    clauses.push({ sql: `s.type IN (${query.types.map(() => '?').join(', ')})`, params: query.types });
  const date = SORT_COLUMN[query.dateField ?? 'createdAt'];
  if (query.createdFrom) clauses.push({ sql: `s.${date.column} >= ?`, params: [query.createdFrom], date: true });
  if (query.createdBefore) clauses.push({ sql: `s.${date.column} < ?`, params: [query.createdBefore], date: true });
  if (query.clusterId) {
    clauses.push({
      sql: `${ITEM_ID} IN (SELECT media_id FROM cluster_members WHERE cluster_id = ?)`,
      params: [query.clusterId.toLowerCase().replace(/-/g, '')],
    });
  }
  if (query.albumId) {
    clauses.push({
      sql: `EXISTS (SELECT 1 FROM album_items x JOIN media am ON am.root_id = x.media_id WHERE am.id = ${ITEM_ID} AND x.album_id = ?)`,
      params: [query.albumId],
    });
  }
  const places = placeClause(query.places, ITEM_ID);
  if (places) clauses.push(places);
  // The flags, probed per row where no set of items answers (a cluster, a single item, an id list).
  const flagged = (column: string, on: boolean) => ({
    sql: `${on ? '' : 'NOT '}EXISTS (SELECT 1 FROM media fm WHERE fm.id = ${ITEM_ID} AND fm.${column} = 1)`,
    params: [],
    flag: true as const,
  });
  if (query.favorite === true) clauses.push(flagged('favorite', true));
  if (archivedMode(query) !== 'include') clauses.push(flagged('archived', archivedMode(query) === 'only'));
  const joined = (kept: typeof clauses) => ({
    where: kept.map((c) => ` AND ${c.sql}`).join(''),
    params: kept.flatMap((c) => c.params),
  });
  const tags = tagTerms(query);
  return {
    ...joined(clauses),
    undated: joined(clauses.filter((c) => !c.date && !c.flag)),
    unflagged: joined(clauses.filter((c) => !c.flag)),
    tags,
    countable:
      !query.createdFrom &&
      !query.createdBefore &&
      !query.clusterId &&
      tags.length === 0 &&
      !flagFiltered(query) &&
      !query.albumId &&
      !places,
    dateIndex: date.index,
  };
}

function tagTerms(query: BrowseQuery): TagTerm[] {
  const terms: TagTerm[] = [];
  for (const [group, values] of Object.entries(query.tagFilters ?? {})) {
    if (values.length === 0) continue;
    const list = values.map(() => '?').join(', ');
    terms.push({
      probe: `EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = ${ITEM_ID} AND t.grp = ? AND t.value IN (${list}))`,
      params: [group, ...values],
      drive: `SELECT DISTINCT media_id FROM media_tags WHERE dataset_id = ? AND grp = ? AND value IN (${list})`,
      driveParams: [query.collectionId, group, ...values],
      size: `SELECT coalesce(sum(count), 0) FROM tag_counts WHERE dataset_id = ? AND grp = ? AND value IN (${list})`,
      sizeParams: [query.collectionId, group, ...values],
    });
  }
  for (const value of query.tagValues ?? []) {
    terms.push({
      probe: `EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = ${ITEM_ID} AND t.value = ?)`,
      params: [value],
      drive: `SELECT DISTINCT media_id FROM media_tags WHERE dataset_id = ? AND value = ?`,
      driveParams: [query.collectionId, value],
      size: `SELECT coalesce(sum(count), 0) FROM tag_counts WHERE dataset_id = ? AND value = ?`,
      sizeParams: [query.collectionId, value],
    });
  }
  return terms;
}

/** The probes of every tag term but `skip`, as `AND …` clauses with their parameters. */
export function probes(tags: TagTerm[], skip: TagTerm | null): { where: string; params: unknown[] } {
  const kept = tags.filter((t) => t !== skip);
  return { where: kept.map((t) => ` AND ${t.probe}`).join(''), params: kept.flatMap((t) => t.params) };
}
