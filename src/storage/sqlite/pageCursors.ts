import type { Db } from './database.js';
import { ITEM_ID } from './browseFilter.js';

/**
 * A place in a walk: `at` matches come before the first row after (key, item) in the walk's direction — or
 * at it, when `inclusive` (a block's start, rankBlocks.ts).
 */
export interface Cursor {
  at: number;
  key: string;
  item: Buffer;
  inclusive?: boolean;
}

/** Cursors kept per walk, walks kept, listing sets kept (the oldest go first). */
const CURSORS_PER_WALK = 64;
const WALKS = 128;
const SETS = 16;

/**
 * Keyset pagination inside the storage layer. The API pages by offset, and a
 * deep page of a selective filter walks every sort-index row before it. Each
 * walked page leaves cursors behind (where it began and where it ended, as the
 * sort key and id of the row before); the next page of the same listing starts
 * at the nearest one before its offset, so paging on (the web app's infinite
 * scroll, the CLI's pages) steps over one page's rows, not all the rows before
 * it. Any write to the database, by this connection or another, forgets every
 * cursor: a page is always exactly what the offset query gives. The listing's
 * set of items (the bitmaps' answer, browseBitmaps.ts) is kept beside its
 * cursors under the same rule, so the next page does not build it again.
 */
export type PageCursors = ReturnType<typeof pageCursors>;

export function pageCursors(db: Db) {
  // data_version moves when another connection commits; total_changes() when this one writes.
  const versionNow = db.prepare(`SELECT (SELECT data_version FROM pragma_data_version) || '/' || total_changes()`);
  let version = '';
  const walks = new Map<string, Cursor[]>();
  const sets = new Map<string, unknown>();
  const forgetIfChanged = () => {
    const now = versionNow.pluck().get() as string;
    if (now !== version) {
      walks.clear();
      sets.clear();
    }
    version = now;
  };
  return {
    /** The value `make` gives for `key`, made once until the database changes (a listing's set of items). */
    kept<T>(key: string, make: () => T): T {
      forgetIfChanged();
      if (sets.has(key)) return sets.get(key) as T;
      const value = make();
      if (sets.size >= SETS) sets.delete(sets.keys().next().value!);
      sets.set(key, value);
      return value;
    },
    /** The cursor of `walk` nearest before `offset` (null: start from the first row). */
    nearest(walk: string, offset: number): Cursor | null {
      forgetIfChanged();
      let best: Cursor | null = null;
      for (const c of walks.get(walk) ?? []) if (c.at <= offset && (!best || c.at > best.at)) best = c;
      return best;
    },
    remember(walk: string, cursor: Cursor): void {
      let list = walks.get(walk);
      if (!list) {
        if (walks.size >= WALKS) walks.delete(walks.keys().next().value!);
        walks.set(walk, (list = []));
      }
      if (list.some((c) => c.at === cursor.at)) return;
      if (list.length >= CURSORS_PER_WALK) list.shift();
      list.push(cursor);
    },
  };
}

/** One page of a walk of a sort index: its rows' source, the sort column, the direction, the window. */
export interface Walk {
  /** `FROM media_scope s INDEXED BY … WHERE …`: the rows in the scope that pass the filters. */
  from: string;
  params: unknown[];
  column: string;
  /** Whether the column never holds NULL: only then is (key, id) a place to start a range at. */
  keyed: boolean;
  desc: boolean;
  limit: number;
  offset: number;
}

/**
 * The filter's bound on the sort column at the end the walk starts from, kept out of the index range (`+`): the
 * cursor is a tighter start (its row passed the filter), and SQLite would otherwise range on the bound and step
 * over every row before the cursor.
 */
function startBoundAside(from: string, column: string, desc: boolean): string {
  return from.replace(new RegExp(`\\bs\\.${column} ${desc ? '<' : '>='} \\?`), (bound) => `+${bound}`);
}

/** A walked row: its id, its sort key and its id's bytes (a cursor's place). */
export type WalkRow = { id: string; k: string; item: Buffer };

/** A cursor of a walk, as `nearest` finds it. */
export type WalkCursor = ReturnType<PageCursors['nearest']>;

/**
 * The ids of one page of `walk`, started at `cursor` (the walk's nearest, or
 * null: from the first row; `signature` names the listing: the same signature
 * must mean the same rows in the same order). Reads the row before the page
 * too, to leave a cursor where the page begins (a repeat of the page starts
 * there), and one where it ends.
 */
export function walkPage(
  cursors: PageCursors,
  signature: string,
  walk: Walk,
  cursor: WalkCursor,
  run: (sql: string, params: unknown[]) => WalkRow[],
): string[] {
  const { from, params, column, keyed, desc, limit, offset } = walk;
  const skip = offset - (cursor?.at ?? 0);
  const before = keyed && skip > 0 ? 1 : 0;
  const dir = desc ? 'DESC' : 'ASC';
  const after = cursor ? ` AND (s.${column}, s.item) ${desc ? '<' : '>'}${cursor.inclusive ? '=' : ''} (?, ?)` : '';
  const rows = run(
    `SELECT ${ITEM_ID} AS id, s.${column} AS k, s.item AS item ${cursor ? startBoundAside(from, column, desc) : from}${after}
     ORDER BY s.${column} ${dir}, s.item ${dir} LIMIT ? OFFSET ?`,
    [...params, ...(cursor ? [cursor.key, cursor.item] : []), limit + before, skip - before],
  );
  if (keyed) {
    if (before && rows.length) cursors.remember(signature, { at: offset, key: rows[0].k, item: rows[0].item });
    const last = rows.at(-1);
    if (last && rows.length === limit + before)
      cursors.remember(signature, { at: offset + limit, key: last.k, item: last.item });
  }
  return rows.slice(before).map((r) => r.id);
}
