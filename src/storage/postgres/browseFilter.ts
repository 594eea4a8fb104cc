import { isLtreePath, pathLabel } from '../../platform/ids.js';
import type { BrowseQuery, SortField } from '../types.js';
import { placeClause } from './placeFilter.js';

/**
 * The sort key of each field over media m, as the indexes of migration 030 spell it (an expression must be
 * written as the index writes it for the planner to use the index). Keys compare as SQLite compares them:
 * bytes, `name` with ASCII letters folded (NOCASE); takenAt is the capture time, else createdAt's ISO text.
 */
export const SORT_KEY: Record<SortField, { expr: string; nullable?: true }> = {
  createdAt: { expr: `m.created_at` },
  name: { expr: `lower(m.name COLLATE "C")` },
  type: { expr: `(m.type COLLATE "C")` },
  description: { expr: `(m.description COLLATE "C")`, nullable: true },
  prompt: { expr: `(m.prompt COLLATE "C")`, nullable: true },
  takenAt: { expr: `(coalesce(m.taken_at, media_iso(m.created_at)) COLLATE "C")` },
};

/** A bound that compares as a timestamp exactly as its text compares with stored ISO text (index-usable). */
const CANONICAL_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A WHERE clause over media m with its parameters ($1… in order). */
export interface Filter {
  where: string;
  params: unknown[];
}

/** Builds a clause list, numbering the parameters as they are added. */
class Clauses {
  readonly parts: string[] = [];
  readonly params: unknown[] = [];
  /** The placeholder of a new parameter. */
  p(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }
  add(sql: string): void {
    this.parts.push(sql);
  }
}

/**
 * The filter of a browse query over media m: the live rows of the place (one level: parent_path, a subtree:
 * path <@ the place, without the place itself) and the query's filters. Null when the place cannot list
 * anything: a path of another collection, or of a folder no longer there (moved or deleted: a folder's old
 * path must not list its new contents); that check is part of the statement, so it reads the same snapshot.
 */
export function browseFilter(query: BrowseQuery): Filter | null {
  const labels = query.path.split('.');
  if (!isLtreePath(query.path) || labels[0] !== pathLabel(query.collectionId)) return null;
  const c = new Clauses();
  c.add(`m.status = 'active' AND m.is_current`);
  if (labels.length > 1) {
    const last = labels[labels.length - 1];
    c.add(
      `EXISTS (SELECT 1 FROM media f WHERE f.id = ${c.p(last)} AND f.path = ${c.p(query.path)}::ltree
        AND f.status = 'active' AND f.type = 'folder')`,
    );
  }
  if (query.recursive && labels.length === 1) {
    // The whole collection: every path in it starts with its label (a move stays in its collection), so
    // the collection's indexes alone answer, their counts index-only.
    c.add(`m.dataset_id = ${c.p(query.collectionId)}`);
  } else if (query.recursive) {
    const place = c.p(query.path);
    c.add(`m.dataset_id = ${c.p(query.collectionId)} AND m.path <@ ${place}::ltree AND m.path <> ${place}::ltree`);
  } else {
    c.add(`m.parent_path = ${c.p(query.path)}::ltree`);
  }
  if (query.types && query.types.length) c.add(`m.type = ANY(${c.p(query.types)}::text[])`);
  dateClauses(c, query);
  if (query.clusterId) {
    c.add(
      `m.id IN (SELECT media_id FROM cluster_members WHERE cluster_id = ${c.p(query.clusterId.toLowerCase().replace(/-/g, ''))})`,
    );
  }
  if (query.albumId)
    c.add(`EXISTS (SELECT 1 FROM album_items x WHERE x.album_id = ${c.p(query.albumId)} AND x.media_id = m.root_id)`);
  if (query.mediaId !== null) c.add(`m.id = ${c.p(query.mediaId)}`);
  const places = placeClause(query.places, (v) => c.p(v));
  if (places) c.add(places);
  // Favourites only; archived items left out (the default views), listed too, or alone (migration 060).
  if (query.favorite === true) c.add(`m.favorite`);
  const archived = query.archived ?? 'exclude';
  if (archived === 'exclude') c.add(`NOT m.archived`);
  else if (archived === 'only') c.add(`m.archived`);
  // Tags: AND between groups, OR within one; each legacy value in any group. Only live items have tag rows.
  for (const [group, values] of Object.entries(query.tagFilters ?? {})) {
    if (values.length === 0) continue;
    c.add(
      `EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = m.id AND t.grp = ${c.p(group)}
        AND t.value = ANY(${c.p(values)}::text[]))`,
    );
  }
  for (const value of query.tagValues ?? []) {
    c.add(`EXISTS (SELECT 1 FROM media_tags t WHERE t.media_id = m.id AND t.value = ${c.p(value)})`);
  }
  return { where: c.parts.join(' AND '), params: c.params };
}

/** createdFrom (inclusive) and createdBefore (exclusive) on the date dateField names, compared as text. */
function dateClauses(c: Clauses, query: BrowseQuery): void {
  const bounds: Array<[string | null, '>=' | '<']> = [
    [query.createdFrom, '>='],
    [query.createdBefore, '<'],
  ];
  for (const [bound, op] of bounds) {
    if (!bound) continue;
    if (query.dateField === 'takenAt') c.add(`${SORT_KEY.takenAt.expr} ${op} ${c.p(bound)}`);
    // A canonical ISO bound compares as a timestamp (a range of the created_at indexes); any other text as
    // SQLite compares it, with the stored ISO text.
    else if (CANONICAL_ISO.test(bound)) c.add(`m.created_at ${op} ${c.p(bound)}::timestamptz`);
    else c.add(`(media_iso(m.created_at) COLLATE "C") ${op} ${c.p(bound)}`);
  }
}

/** ORDER BY for a sort: the key, then the id, both in the direction asked; NULL first ascending, as SQLite. */
export function orderBy(sortBy: SortField, direction: 'asc' | 'desc'): string {
  const key = SORT_KEY[sortBy] ?? SORT_KEY.createdAt;
  const dir = direction === 'desc' ? 'DESC' : 'ASC';
  const nulls = key.nullable ? (dir === 'ASC' ? ' NULLS FIRST' : ' NULLS LAST') : '';
  return `${key.expr} ${dir}${nulls}, m.id ${dir}`;
}
