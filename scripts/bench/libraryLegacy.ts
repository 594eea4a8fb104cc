/**
 * The library bench's baseline (issue #17): browse, totals and folder summaries
 * as the server ran them before migration 017 — the statements of
 * src/storage/sqlite/browse.ts at commit 0bd322c, kept here verbatim in
 * substance, not in production code — and the schema they need (the listing
 * indexes and live_counts of migrations 001 and 007), which the bench puts back
 * beside media_scope while it measures them, then takes away again.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Db } from '../../src/storage/sqlite/database.js';
import { toMedia, type MediaRow } from '../../src/storage/sqlite/rows.js';
import type { BrowseQuery, FolderSummary, MediaRecord, SortField } from '../../src/storage/types.js';

const LEGACY_INDEXES = [
  `CREATE INDEX IF NOT EXISTS media_live_children_created ON media(parent_path, created_at, id) WHERE status = 'active' AND is_current = 1`,
  `CREATE INDEX IF NOT EXISTS media_live_children_name ON media(parent_path, name COLLATE NOCASE, id) WHERE status = 'active' AND is_current = 1`,
  `CREATE INDEX IF NOT EXISTS media_live_dataset_created ON media(dataset_id, created_at, id) WHERE status = 'active' AND is_current = 1`,
  `CREATE INDEX IF NOT EXISTS media_live_subtree ON media(path, type, created_at) WHERE status = 'active' AND is_current = 1`,
];
const LIVE_COUNTS = [
  `CREATE TABLE IF NOT EXISTS live_counts (kind TEXT NOT NULL, key TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID`,
  `DELETE FROM live_counts`,
  `INSERT INTO live_counts (kind, key, n) SELECT 'children', substr(parent_path, -32), count(*) FROM media
     WHERE status = 'active' AND is_current = 1 GROUP BY substr(parent_path, -32)`,
  `INSERT INTO live_counts (kind, key, n) SELECT 'dataset', dataset_id, count(*) FROM media
     WHERE status = 'active' AND is_current = 1 GROUP BY dataset_id`,
];

/** Puts the old listing indexes and a filled live_counts back (for the baseline reads and the migration timing). */
export function addLegacySchema(db: Db): void {
  for (const sql of [...LEGACY_INDEXES, ...LIVE_COUNTS]) db.exec(sql);
}

/** Removes them again, so that the writes measured for ours pay only for ours. */
export function dropLegacySchema(db: Db): void {
  for (const name of ['children_created', 'children_name', 'dataset_created', 'subtree'])
    db.exec(`DROP INDEX IF EXISTS media_live_${name}`);
  db.exec(`DROP TABLE IF EXISTS live_counts`);
}

const MIGRATIONS = path.join(import.meta.dirname, '../../src/storage/sqlite/migrations');
/** The CREATE TRIGGER statements of a migration file. */
const triggersOf = (file: string): string[] =>
  readFileSync(path.join(MIGRATIONS, file), 'utf8').match(/CREATE TRIGGER[\s\S]*?\bEND;/g) ?? [];

/** The media triggers that keep media_scope in step: off while a baseline write runs as the old schema did. */
function scopeTriggers(db: Db): { off(): void; on(): void } {
  const saved = db
    .prepare(
      `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'media' AND name LIKE 'media_scope_%'`,
    )
    .all() as Array<{ name: string; sql: string }>;
  return {
    off: () => saved.forEach((t) => db.exec(`DROP TRIGGER IF EXISTS ${t.name}`)),
    on: () => saved.forEach((t) => db.exec(t.sql)),
  };
}

/** The tag bitmap triggers (migration 021) and the statement that fills tag_bits from media_tags. */
const TAG_BITS_TRIGGERS = triggersOf('021_browse_bitmaps.sql').filter((sql) => /ON media_tags/.test(sql));
const TAG_BITS_FILL = /INSERT INTO tag_bits[\s\S]*?;/.exec(
  readFileSync(path.join(MIGRATIONS, '021_browse_bitmaps.sql'), 'utf8'),
)![0];

/**
 * Writes as the schema before #17 made them: its listing indexes and live_counts
 * with its triggers (migration 007), and no media_scope or tag bitmap triggers.
 * Only for writes that leave media_scope right when they are undone or deleted
 * (moves there and back; tag edits; items in a folder deleted afterwards);
 * tag_bits is filled again from media_tags when the mode ends.
 */
export function legacyWriteMode(db: Db) {
  const scope = scopeTriggers(db);
  const liveCounts = triggersOf('007_live_counts.sql');
  const mode = {
    active: false,
    on() {
      addLegacySchema(db);
      liveCounts.forEach((sql) => db.exec(sql));
      scope.off();
      for (const name of ['insert', 'delete']) db.exec(`DROP TRIGGER IF EXISTS media_tags_bits_${name}`);
      mode.active = true;
    },
    off() {
      for (const name of ['insert', 'update', 'delete']) db.exec(`DROP TRIGGER IF EXISTS media_live_count_${name}`);
      dropLegacySchema(db);
      scope.on();
      db.transaction(() => {
        db.exec(`DELETE FROM tag_bits; ${TAG_BITS_FILL}`);
        TAG_BITS_TRIGGERS.forEach((sql) => db.exec(sql));
      })();
      mode.active = false;
    },
  };
  return mode;
}

/**
 * Times migration 021 (the browse bitmaps) on this library as an existing one would run it at start-up:
 * its tables and triggers removed, then the migration file in one transaction.
 */
export function timeBitmapMigration(db: Db): number {
  for (const name of ['insert', 'delete']) db.exec(`DROP TRIGGER IF EXISTS media_tags_bits_${name}`);
  db.exec(`DROP TABLE media_ords; DROP TABLE scope_bits; DROP TABLE tag_bits; DROP TABLE day_bits;`);
  for (const name of ['bits_insert', 'bits_delete', 'bits_type', 'day_insert', 'day_delete', 'day_update'])
    db.exec(`DROP TRIGGER IF EXISTS media_scope_${name}`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const sql = readFileSync(path.join(MIGRATIONS, '021_browse_bitmaps.sql'), 'utf8');
  const t0 = performance.now();
  db.transaction(() => db.exec(sql))();
  return performance.now() - t0;
}

/** The sort indexes of media_scope as migrations 017 and 019 made them (before 022 added `ord`). */
const SCOPE_INDEXES_BEFORE_022 = `
  CREATE INDEX media_scope_created ON media_scope(scope, lvl, created_at, item, type);
  CREATE INDEX media_scope_name ON media_scope(scope, lvl, name, item, type, created_at);
  CREATE INDEX media_scope_type ON media_scope(scope, lvl, type, item, created_at);
  CREATE INDEX media_scope_description ON media_scope(scope, lvl, description, item, type, created_at);
  CREATE INDEX media_scope_prompt ON media_scope(scope, lvl, prompt, item, type, created_at);
  CREATE INDEX media_scope_taken ON media_scope(scope, lvl, taken_at, item, type, created_at);`;

/**
 * Times migration 022 on this library as an existing one would run it at start-up: media_scope put back as
 * it was before (no `ord`, the indexes without it), then the migration file in one transaction. Run 023 and
 * 024's timings after it (they put their triggers back).
 */
export function timeOrdMigration(db: Db): number {
  // The triggers of 023 and 024 read media_scope.ord: dropped here, made again by timing those next.
  for (const e of ['insert', 'delete', 'update'])
    db.exec(`DROP TRIGGER IF EXISTS media_scope_month_${e}; DROP TRIGGER IF EXISTS media_scope_taken_${e}`);
  // So do migration 025's rank_log triggers (SQLite refuses to drop a column a trigger names): dropped here and
  // made again, untimed, once 022 has put the column back.
  const rankLogTriggers = triggersOf('025_rank_log.sql').filter((sql) => /\bON media_scope\b/.test(sql));
  for (const name of ['live', 'keys']) db.exec(`DROP TRIGGER IF EXISTS rank_log_${name}`);
  for (const key of ['created', 'name', 'type', 'description', 'prompt', 'taken'])
    db.exec(`DROP INDEX media_scope_${key}`);
  db.exec(`ALTER TABLE media_scope DROP COLUMN ord; ${SCOPE_INDEXES_BEFORE_022}`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const sql = readFileSync(path.join(MIGRATIONS, '022_scope_ords.sql'), 'utf8');
  const t0 = performance.now();
  db.transaction(() => db.exec(sql))();
  const ms = performance.now() - t0;
  rankLogTriggers.forEach((trigger) => db.exec(trigger));
  return ms;
}

/**
 * Times a bitmap migration that only adds tables and triggers (023: months; 024: capture-time days and months)
 * on this library: its tables and triggers removed, the file run again in one transaction.
 */
export function timeAddedBitmaps(db: Db, file: string, tables: string[], triggers: string[]): number {
  for (const name of triggers) db.exec(`DROP TRIGGER IF EXISTS ${name}`);
  for (const name of tables) db.exec(`DROP TABLE ${name}`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const sql = readFileSync(path.join(MIGRATIONS, file), 'utf8');
  const t0 = performance.now();
  db.transaction(() => db.exec(sql))();
  return performance.now() - t0;
}

/** Migration 023 (month bitmaps), timed as timeAddedBitmaps does. */
export const timeMonthMigration = (db: Db) =>
  timeAddedBitmaps(
    db,
    '023_month_bits.sql',
    ['month_bits'],
    ['insert', 'delete', 'update'].map((e) => `media_scope_month_${e}`),
  );

/** Migration 024 (capture-time bitmaps), timed as timeAddedBitmaps does. */
export const timeTakenMigration = (db: Db) =>
  timeAddedBitmaps(
    db,
    '024_taken_bits.sql',
    ['taken_day_bits', 'taken_month_bits'],
    ['insert', 'delete', 'update'].map((e) => `media_scope_taken_${e}`),
  );

/**
 * Times migration 017 on this library as an existing one would run it at start-up: the schema put back as it
 * was before (listing indexes, live_counts), media_scope removed, then the migration file in one transaction.
 */
export function timeScopeMigration(db: Db): number {
  const mode = legacyWriteMode(db);
  mode.on();
  db.exec(
    `DROP TABLE media_scope; DROP TABLE media_scope_counts; DROP TABLE media_scope_bulk; DROP INDEX media_live_folders;`,
  );
  db.pragma('wal_checkpoint(TRUNCATE)');
  const sql = readFileSync(path.join(MIGRATIONS, '017_browse_scopes.sql'), 'utf8');
  const t0 = performance.now();
  db.transaction(() => db.exec(sql))();
  return performance.now() - t0;
}

const SORT_SQL: Record<SortField, string> = {
  createdAt: 'm.created_at',
  name: 'm.name COLLATE NOCASE',
  type: 'm.type',
  description: 'm.description',
  prompt: 'm.prompt',
  takenAt: 'coalesce(m.taken_at, m.created_at)',
};

/** How many of a collection's newest items a folder-preview lookup may step through. */
const PREVIEW_SCAN = 2000;

/** The collection id (hyphenated) from a path's first label. */
const collectionOfPath = (path: string) => {
  const h = path.slice(0, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** WHERE clause and parameters for a browse query; every filter runs inside SQLite on indexes. */
function browseWhere(query: BrowseQuery): { where: string; params: unknown[] } {
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
  const date = query.dateField === 'takenAt' ? SORT_SQL.takenAt : 'm.created_at';
  if (query.createdFrom) {
    clauses.push(`${date} >= ?`);
    params.push(query.createdFrom);
  }
  if (query.createdBefore) {
    clauses.push(`${date} < ?`);
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
    clauses.push(`m.id IN (SELECT media_id FROM cluster_members WHERE cluster_id = ?)`);
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
function folderSummaries(db: Db) {
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
    async folderSummaries(paths: string[]) {
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

/** The old browse: one read transaction, the total then the page (src/storage/sqlite/browse.ts at 0bd322c). */
export function legacyBrowse(db: Db) {
  const counts = countStatements(db);
  const summaries = folderSummaries(db);
  const browse = db.transaction((query: BrowseQuery): { items: MediaRecord[]; total: number } => {
    const { where, params } = browseWhere(query);
    const total = countListing(db, counts, query, where, params);
    if (query.offset >= total) return { items: [], total };
    return { items: readPage(db, query, where, params, total).map(toMedia), total };
  });
  return {
    browse,
    folderSummaries: (paths: string[]): Promise<Map<string, FolderSummary>> => summaries.folderSummaries(paths),
  };
}

/** The folder move before #17 (src/storage/sqlite/mediaTree.ts at 0bd322c): one UPDATE of the subtree's paths. */
export function legacyMoveFolder(db: Db) {
  const rowOf = db.prepare(`SELECT path FROM media WHERE id = ? AND status = 'active'`);
  return db.transaction((id: string, destinationPath: string, userId: string): string => {
    const { path: oldPath } = rowOf.get(id) as { path: string };
    const newPath = `${destinationPath}.${id}`;
    db.prepare(
      `UPDATE media SET
         path = @newPath || substr(path, @oldLen + 1),
         parent_path = CASE WHEN id = @id THEN @dest ELSE @newPath || substr(parent_path, @oldLen + 1) END
       WHERE id = @id OR (path > @lo AND path < @hi)`,
    ).run({ newPath, oldLen: oldPath.length, id, dest: destinationPath, lo: `${oldPath}.`, hi: `${oldPath}/` });
    db.prepare(`UPDATE media SET updated_at = ?, updated_by = ? WHERE id = ?`).run(
      new Date().toISOString(),
      userId,
      id,
    );
    return newPath;
  });
}
