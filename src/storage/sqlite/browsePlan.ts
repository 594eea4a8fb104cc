import type { Statement } from 'better-sqlite3';
import type { BrowseQuery } from '../types.js';
import type { Db } from './database.js';
import { ITEM_ID, SORT_COLUMN, probes, type Scope, type ScopeFilter, type TagTerm } from './browseFilter.js';
import { bitmapCandidates } from './browseBitmaps.js';
import { withCandidates } from './bitmapFunctions.js';
import type { ItemSet } from './itemBitmap.js';
import { pageCursors, walkPage, type Cursor, type PageCursors, type Walk, type WalkRow } from './pageCursors.js';
import { rankBlocks } from './rankBlocks.js';

/** How many distinct statement texts a store keeps prepared (filter shapes × sort keys × directions). */
const STATEMENT_CACHE = 256;

/** Prepared statements by text: a listing's SQL depends on the shape of its filters, not only its values. */
export function statementCache(db: Db): (sql: string) => Statement {
  const cache = new Map<string, Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (!statement) {
      if (cache.size >= STATEMENT_CACHE) cache.clear();
      statement = db.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
}

/**
 * What reading a listing's candidates in sort order costs per candidate (a number lookup, a scope row by
 * primary key, a place in the sort) against testing one walked row of the sort index (its item number is in
 * the index entry since migration 022); a rough ratio (measured at 1,000,000 items: ≈ 4.6 µs against ≈ 0.2 µs).
 */
const SORTED_CANDIDATE_COST = 20;

/**
 * How many index rows a walk may step over before a rank of the sort order (rankBlocks.ts) is asked for a
 * nearer start: about 4 ms of walking (≈ 0.2 µs a row), against counting the listing's set per block.
 */
const RANK_WORTH_ROWS = 20_000;

/** Settings of the planner, for tests that make a small library take the paths a big one takes. */
export interface PlannerTuning {
  /** Whether every walk of a listing's set asks a rank for a nearer start, however short (default false). */
  alwaysLeap?: boolean;
}

/** What the plans share: the statement cache, the scope's size and the tag sizes. */
interface Planning {
  db: Db;
  prepare: (sql: string) => Statement;
  scopeSize(scope: Scope, types: string[] | null): number;
  /** The tag term with the fewest items, when it has fewer than `than`. */
  smallestTag(filter: ScopeFilter, than: number): { term: TagTerm; size: number } | null;
  cursors: PageCursors;
  ranks: ReturnType<typeof rankBlocks>;
  alwaysLeap: boolean;
}

function planning(db: Db, tuning: PlannerTuning): Planning {
  const prepare = statementCache(db);
  const tagSize = (term: TagTerm): number =>
    prepare(term.size)
      .pluck()
      .get(...term.sizeParams) as number;
  return {
    db,
    prepare,
    cursors: pageCursors(db),
    ranks: rankBlocks(db),
    alwaysLeap: tuning.alwaysLeap ?? false,
    scopeSize: (scope, types) =>
      prepare(
        `SELECT coalesce(sum(n), 0) FROM media_scope_counts WHERE scope = ? AND lvl = ?` +
          (types?.length ? ` AND type IN (${types.map(() => '?').join(', ')})` : ''),
      )
        .pluck()
        .get(scope.key, scope.lvl, ...(types ?? [])) as number,
    smallestTag: (filter, than) => {
      let best: { term: TagTerm; size: number } | null = null;
      for (const term of filter.tags) {
        const size = tagSize(term);
        if (!best || size < best.size) best = { term, size };
      }
      return best && best.size < than ? best : null;
    },
  };
}

/** The statement reading a scope's rows: from the tag driver's items (by primary key) or a walk of `index`. */
function scopeSql(select: string, driver: TagTerm | null, index: string, where: string): string {
  return driver
    ? `SELECT ${select} FROM (${driver.drive}) c CROSS JOIN media_scope s WHERE s.item = unhex(c.media_id) AND ${where}`
    : `SELECT ${select} FROM media_scope s INDEXED BY ${index} WHERE ${where}`;
}

/** The scope, the filters and the tag probes left besides the driver, as a WHERE clause and its parameters. */
function scopeWhere(scope: Scope, filter: ScopeFilter, driver: TagTerm | null) {
  const rest = probes(filter.tags, driver);
  return {
    where: `s.scope = ? AND s.lvl = ?${filter.where}${rest.where}`,
    params: [...(driver?.driveParams ?? []), scope.key, scope.lvl, ...filter.params, ...rest.params],
  };
}

/**
 * The exact total: the kept counter (place and types only), a count inside the
 * scope's index (dates, clusters, tags probed per row), or a count of a tag's
 * items, each checked against the scope by primary key, when fewer items carry
 * the tag than the scope holds.
 */
function count(p: Planning, scope: Scope, query: BrowseQuery, filter: ScopeFilter, all: number): number {
  if (filter.countable) return query.types?.length ? p.scopeSize(scope, query.types) : all;
  const driver = p.smallestTag(filter, all)?.term ?? null;
  const { where, params } = scopeWhere(scope, filter, driver);
  return p
    .prepare(scopeSql('count(*)', driver, filter.dateIndex, where))
    .pluck()
    .get(...params) as number;
}

/**
 * Where a page of `total` rows is read from: the sort key's index, walked from the nearer end (a page past
 * the middle reads backwards and is reversed), its LIMIT and OFFSET in that direction, ties by id.
 */
function pageWindow(query: BrowseQuery, total: number) {
  const { column, index, nullable } = SORT_COLUMN[query.sortBy];
  const fromEnd = query.offset > total / 2;
  const desc = (query.sortDirection === 'desc') !== fromEnd;
  const dir = desc ? 'DESC' : 'ASC';
  const limit = Math.min(query.limit, total - query.offset);
  const offset = fromEnd ? total - query.offset - limit : query.offset;
  const order = `ORDER BY s.${column} ${dir}, s.item ${dir} LIMIT ? OFFSET ?`;
  return { index, fromEnd, limit, offset, order, column, desc, keyed: !nullable };
}

/** What decides a listing's set of items besides its SQL: the filters the bitmaps answer. */
function setSignature(query: BrowseQuery): string {
  const {
    tagFilters,
    tagValues,
    createdFrom,
    createdBefore,
    dateField,
    types,
    clusterId,
    favorite,
    archived,
    albumId,
    places,
  } = query;
  return JSON.stringify([
    tagFilters,
    tagValues,
    createdFrom,
    createdBefore,
    dateField,
    types,
    clusterId,
    favorite,
    archived,
    albumId,
    places,
  ]);
}

/**
 * A walk of the sort index from `from`, started at the nearest cursor of the same walk (pageCursors.ts), or
 * where `leap` says, when that is nearer (it is given the matches the walk would step over).
 */
function walkFrom(
  p: Planning,
  window: ReturnType<typeof pageWindow>,
  from: string,
  params: unknown[],
  set = '',
  leap?: (skipped: number) => Cursor | null,
) {
  const walk: Walk = { from, params, ...window };
  const signature = `${from}|${JSON.stringify(params)}|${set}|${window.desc}`;
  const nearest = window.keyed ? p.cursors.nearest(signature, window.offset) : null;
  const leapt = window.keyed && leap ? leap(window.offset - (nearest?.at ?? 0)) : null;
  const cursor = leapt && leapt.at > (nearest?.at ?? 0) ? leapt : nearest;
  return {
    /** Matches the walk steps over before the page (from the nearest cursor). */
    skipped: window.offset - (cursor?.at ?? 0),
    ids: () => walkPage(p.cursors, signature, walk, cursor, (sql, args) => p.prepare(sql).all(...args) as WalkRow[]),
  };
}

/**
 * One page of `total` rows: a walk of the sort key's index from the nearer
 * end, unless reading a tag's items and sorting the matches steps over fewer
 * rows. Ties break by id in the sort's direction.
 */
function page(p: Planning, scope: Scope, query: BrowseQuery, filter: ScopeFilter, total: number, all: number) {
  const window = pageWindow(query, total);
  const { index, fromEnd, limit, offset, order } = window;
  // Rows a walk steps over, matching or not, against reading a tag's items and sorting the matches.
  const walked = ((offset + limit) * all) / Math.max(total, 1);
  const driver = p.smallestTag(filter, walked - total)?.term ?? null;
  const { where, params } = scopeWhere(scope, filter, driver);
  const ids = driver
    ? (p
        .prepare(`${scopeSql(ITEM_ID, driver, index, where)} ${order}`)
        .pluck()
        .all(...params, limit, offset) as string[])
    : walkFrom(p, window, `FROM media_scope s INDEXED BY ${index} WHERE ${where}`, params).ids();
  return fromEnd ? ids.reverse() : ids;
}

/**
 * One page of a listing whose items are `set` (its size is `total`): a walk of
 * the sort key's index from the nearer end testing each row's item number
 * against the set — from the block of the sort order holding the page when the
 * walk would be long (`ranked`: not inside a writing transaction) — or, when
 * fewer candidates than rows the walk would step over, the candidates read by
 * number and sorted.
 */
function pageOfSet(
  p: Planning,
  scope: Scope,
  query: BrowseQuery,
  filter: ScopeFilter,
  set: ItemSet,
  total: number,
  ranked: boolean,
) {
  const window = pageWindow(query, total);
  const { fromEnd, limit, offset, order } = window;
  const rowsPerMatch = p.scopeSize(scope, query.types) / Math.max(total, 1);
  // The set has the dates already: their clauses stay only where they make the walk a range of the index.
  const dated = query.sortBy === (query.dateField ?? 'createdAt');
  const { where, params } = dated ? filter.unflagged : filter.undated;
  // Counting the set per block costs about a twentieth of walking a row per member. A walk that is a date
  // range of the index steps over fewer rows than the scope's share per match says: it leaps only for a small
  // set, whose counting costs little whatever the walk would have been.
  const ranged = dated && Boolean(query.createdFrom || query.createdBefore);
  const worth = (skipped: number) =>
    (!ranged || total <= RANK_WORTH_ROWS) && (skipped + limit) * rowsPerMatch > Math.max(RANK_WORTH_ROWS, total / 20);
  const leap = (skipped: number) =>
    ranked && (p.alwaysLeap || worth(skipped))
      ? p.ranks.cursor(query.collectionId, window.column, set, window.desc, offset)
      : null;
  const walk = walkFrom(
    p,
    window,
    `FROM media_scope s INDEXED BY ${window.index} WHERE s.scope = ? AND s.lvl = ?${where} AND browse_has(s.ord)`,
    [scope.key, scope.lvl, ...params],
    setSignature(query),
    leap,
  );
  const walked = (walk.skipped + limit) * rowsPerMatch;
  const ids =
    total * SORTED_CANDIDATE_COST < walked
      ? (p
          .prepare(
            `SELECT ${ITEM_ID} FROM media_ords o CROSS JOIN media_scope s
             WHERE o.ord IN (SELECT value FROM json_each(?)) AND s.item = o.item AND s.scope = ? AND s.lvl = ? ${order}`,
          )
          .pluck()
          .all(JSON.stringify([...set.members()]), scope.key, scope.lvl, limit, offset) as string[])
      : withCandidates(p.db, set, walk.ids);
  return fromEnd ? ids.reverse() : ids;
}

/** Totals, pages and id lists of listings over media_scope (see count and page for how each is read). */
export function browsePlanner(db: Db, tuning: PlannerTuning = {}) {
  const p = planning(db, tuning);
  const candidates = bitmapCandidates(p.prepare);
  return {
    scopeSize: (scope: Scope) => p.scopeSize(scope, null),
    /**
     * The items of a listing filtered by tags or dates as a set, or null when the bitmaps do not answer it;
     * kept until the next write, for the listing's next pages.
     */
    candidates: (scope: Scope, query: BrowseQuery) =>
      p.cursors.kept(`${query.collectionId}|${scope.key.toString('hex')}|${scope.lvl}|${setSignature(query)}`, () =>
        candidates(scope, query),
      ),
    /** A page of `set`, the items of the listing (`ranked`: outside any writing transaction). */
    pageOfSet: (scope: Scope, query: BrowseQuery, filter: ScopeFilter, set: ItemSet, total: number, ranked: boolean) =>
      pageOfSet(p, scope, query, filter, set, total, ranked),
    count: (scope: Scope, query: BrowseQuery, filter: ScopeFilter, all: number) => count(p, scope, query, filter, all),
    page: (scope: Scope, query: BrowseQuery, filter: ScopeFilter, total: number, all: number) =>
      page(p, scope, query, filter, total, all),
    /** The one item `mediaId` names, when it is in the scope and passes the filters (a primary key probe). */
    single: (scope: Scope, mediaId: string, filter: ScopeFilter): string[] => {
      const { where, params } = scopeWhere(scope, filter, null);
      return p
        .prepare(`SELECT ${ITEM_ID} FROM media_scope s WHERE s.item = ? AND ${where}`)
        .pluck()
        .all(Buffer.from(mediaId, 'hex'), ...params) as string[];
    },
    /** Ids of items passing the filters, in no order, at most `cap`. */
    ids: (scope: Scope, filter: ScopeFilter, cap: number): string[] => {
      const driver = p.smallestTag(filter, p.scopeSize(scope, null))?.term ?? null;
      const { where, params } = scopeWhere(scope, filter, driver);
      return p
        .prepare(`${scopeSql(ITEM_ID, driver, filter.dateIndex, where)} LIMIT ?`)
        .pluck()
        .all(...params, cap) as string[];
    },
  };
}
