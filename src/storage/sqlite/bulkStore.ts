/**
 * Bulk changes on SQLite (storage/bulkStore.ts): one transaction each, the items read a chunk at a time by id,
 * the tag rows written one by one so that media_tags' triggers keep tag_counts and the tag bitmaps (021) in
 * step, and the text index writer told of each tag row as the single-item writes tell it (tagIndex.ts).
 */
import { conflict, notFound } from '../../platform/errors.js';
import {
  applyTagEdit,
  revertDelta,
  tagMap,
  withTags,
  toBulkAction,
  type BulkActionRow as ActionRow,
  isTrashOrFlag,
  type BulkStore,
  type NewBulkAction,
  type RecordedChange,
  type TagDelta,
} from '../bulkStore.js';
import type { EventWriter } from '../eventWriter.js';
import type { IndexWriters } from '../indexWriters.js';
import type { Metadata } from '../types.js';
import { bulkTrashOps } from './bulkTrash.js';
import type { Db } from './database.js';
import { mediaCore, now, type MediaCore } from './mediaCore.js';
import { rowMover } from './mediaTree.js';
import type { MediaRow as FullRow } from './rows.js';
import { columnsOf, rowReader } from './rowReader.js';

const CHUNK = 5000;

/** The columns a bulk change reads of each item (moveRow reads no other). */
type MediaRow = Pick<
  FullRow,
  | 'id'
  | 'dataset_id'
  | 'organization_id'
  | 'path'
  | 'parent_path'
  | 'type'
  | 'metadata'
  | 'status'
  | 'root_id'
  | 'is_current'
>;
const COLUMNS = columnsOf<MediaRow>({
  id: 1,
  dataset_id: 1,
  organization_id: 1,
  path: 1,
  parent_path: 1,
  type: 1,
  metadata: 1,
  status: 1,
  root_id: 1,
  is_current: 1,
});

/** The rows of these ids, in chunks; each active and in the organization, else not found (nothing is written). */
function rowsReader(db: Db) {
  const readChunk = rowReader<MediaRow>(db, COLUMNS, `FROM media WHERE id IN (SELECT value FROM json_each(?))`);
  return function* rowsOf(ids: string[], organizationId: string, skipGone = false): Generator<MediaRow> {
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      const rows = readChunk(JSON.stringify(chunk));
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const id of chunk) {
        const row = byId.get(id);
        if (!row || row.status !== 'active' || row.organization_id !== organizationId) {
          if (skipGone && row?.organization_id === organizationId) continue;
          throw notFound(`media not found: ${id}`);
        }
        yield row;
      }
    }
  };
}

/** Writes one item's new tags: the metadata, the tag rows that changed (their triggers: counts, bitmaps), the text index. */
function tagWriter(db: Db, text: IndexWriters['text']) {
  const setMetadata = db.prepare(`UPDATE media SET metadata = ?, updated_at = ?, updated_by = ? WHERE id = ?`);
  const insertTag = db.prepare(
    `INSERT OR IGNORE INTO media_tags (media_id, dataset_id, grp, value) VALUES (?, ?, ?, ?)`,
  );
  const deleteTag = db.prepare(`DELETE FROM media_tags WHERE media_id = ? AND grp = ? AND value = ?`);
  return (row: MediaRow, metadata: Metadata, tags: Map<string, string[]>, delta: TagDelta, userId: string) => {
    setMetadata.run(JSON.stringify(withTags(metadata, tags)), now(), userId, row.id);
    if (row.is_current !== 1) return;
    // The text index drops an item's tag rows together, before the tag rows go (it finds them through those);
    // the ones left come back after.
    if (delta.removed.length) text.dropTags([row.id]);
    for (const [g, v] of delta.removed) deleteTag.run(row.id, g, v);
    const inserted = delta.added.filter(([g, v]) => insertTag.run(row.id, row.dataset_id, g, v).changes > 0);
    if (delta.removed.length) {
      for (const [g, values] of tags) for (const v of values) text.addTag(row.id, g, v);
    } else for (const [g, v] of inserted) text.addTag(row.id, g, v);
  };
}

/** The user's last action: replaced by each new one. */
function actionLog(db: Db) {
  const drop = db.prepare(`DELETE FROM bulk_actions WHERE organization_id = ? AND user_id = ?`);
  const insert = db.prepare(
    `INSERT INTO bulk_actions (id, organization_id, user_id, operation, changed_count, changes, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  return (action: NewBulkAction, changes: RecordedChange[]) => {
    if (changes.length === 0) return;
    drop.run(action.organizationId, action.userId);
    const operation = JSON.stringify(action.operation);
    insert.run(
      action.id,
      action.organizationId,
      action.userId,
      operation,
      changes.length,
      JSON.stringify(changes),
      now(),
    );
  };
}

const changeOf = (id: string, delta: TagDelta): RecordedChange => ({
  id,
  ...(delta.added.length ? { a: delta.added } : {}),
  ...(delta.removed.length ? { r: delta.removed } : {}),
});

export function sqliteBulkStore(db: Db, writers: IndexWriters, events: EventWriter): BulkStore {
  const core = mediaCore(db, writers, events);
  const moveRow = rowMover(core);
  const rowsOf = rowsReader(db);
  const writeTags = tagWriter(db, writers.text);
  const record = actionLog(db);

  const editTags = db.transaction(
    (action: NewBulkAction, ids: string[], edit: Parameters<BulkStore['editTags']>[2]) => {
      const changes: RecordedChange[] = [];
      for (const row of rowsOf(ids, action.organizationId)) {
        const metadata = JSON.parse(row.metadata) as Metadata;
        const tags = tagMap(metadata);
        const delta = applyTagEdit(tags, edit);
        if (!delta.added.length && !delta.removed.length) continue;
        writeTags(row, metadata, tags, delta, action.userId);
        changes.push(changeOf(row.id, delta));
      }
      record(action, changes);
      return { changed: changes.length, unchanged: ids.length - changes.length };
    },
  );

  const move = db.transaction((action: NewBulkAction, ids: string[], destinationPath: string) => {
    const changes: RecordedChange[] = [];
    for (const row of rowsOf(ids, action.organizationId)) {
      if (row.parent_path === destinationPath) continue;
      changes.push({ id: row.id, from: row.parent_path });
      moveRow(row, destinationPath, action.userId);
    }
    record(action, changes);
    return { changed: changes.length, unchanged: ids.length - changes.length };
  });

  const ops = bulkTrashOps(core);
  const recorded = (action: NewBulkAction, ids: string[], changes: RecordedChange[]) => {
    record(action, changes);
    return { changed: changes.length, unchanged: ids.length - changes.length };
  };
  const setFlags = db.transaction((action: NewBulkAction, ids: string[], patch: Parameters<BulkStore['setFlags']>[2]) =>
    recorded(
      action,
      ids,
      ops.setFlags(
        [...rowsOf(ids, action.organizationId)].map((r) => r.id),
        patch,
      ),
    ),
  );
  const trash = db.transaction((action: NewBulkAction, ids: string[]) =>
    recorded(
      action,
      ids,
      ops.trash(
        [...rowsOf(ids, action.organizationId)].map((r) => r.id),
        action.userId,
      ),
    ),
  );
  const restore = db.transaction((action: NewBulkAction, ids: string[]) =>
    recorded(action, ids, ops.restore(ids, action.organizationId)),
  );

  const undo = undoer(db, core, rowsOf, writeTags, moveRow, ops);

  return {
    editTags: async (action, ids, edit) => editTags(action, ids, edit),
    move: async (action, ids, destinationPath) => move(action, ids, destinationPath),
    setFlags: async (action, ids, patch) => setFlags(action, ids, patch),
    trash: async (action, ids) => trash(action, ids),
    restore: async (action, ids) => restore(action, ids),
    last: async (organizationId, userId) => {
      const row = db
        .prepare(
          `SELECT * FROM bulk_actions WHERE organization_id = ? AND user_id = ? ORDER BY created_at DESC LIMIT 1`,
        )
        .get(organizationId, userId) as ActionRow | undefined;
      return row ? toBulkAction(row) : null;
    },
    undo: async (actionId, organizationId, userId) => undo(actionId, organizationId, userId),
  };
}

/** BulkStore.undo: the recorded changes reversed in one transaction. */
function undoer(
  db: Db,
  core: MediaCore,
  rowsOf: ReturnType<typeof rowsReader>,
  writeTags: ReturnType<typeof tagWriter>,
  moveRow: ReturnType<typeof rowMover>,
  ops: ReturnType<typeof bulkTrashOps>,
) {
  const getAction = db.prepare(`SELECT * FROM bulk_actions WHERE id = ? AND organization_id = ? AND user_id = ?`);

  const isLiveFolderOrRoot = (path: string, row: MediaRow): boolean => {
    if (!path.includes('.')) return path === row.path.split('.')[0];
    const folder = core.fetchRow(path.slice(path.lastIndexOf('.') + 1));
    return !!folder && folder.status === 'active' && folder.type === 'folder' && folder.path === path;
  };

  return db.transaction((actionId: string, organizationId: string, userId: string) => {
    const action = getAction.get(actionId, organizationId, userId) as ActionRow | undefined;
    if (!action) throw notFound('no such bulk action to undo (only your last one can be undone)');
    if (action.undone_at) throw conflict('this bulk action was undone already');
    const changes = JSON.parse(action.changes) as RecordedChange[];
    const byId = new Map(changes.filter((c) => !isTrashOrFlag(c)).map((c) => [c.id, c]));
    const at = now();
    // The flag and trash changes first, last change first (the reverse of the order they were made in).
    let reverted = changes
      .filter(isTrashOrFlag)
      .reverse()
      .filter((c) => ops.undo(c, userId)).length;
    for (const row of rowsOf([...byId.keys()], organizationId, true)) {
      const change = byId.get(row.id)!;
      if (change.from !== undefined) {
        if (!isLiveFolderOrRoot(change.from, row))
          throw conflict('an item cannot go back: the folder it was in is gone');
        if (row.parent_path !== change.from) moveRow(row, change.from, userId);
      } else {
        const metadata = JSON.parse(row.metadata) as Metadata;
        const tags = tagMap(metadata);
        const delta = revertDelta(tags, { added: change.a ?? [], removed: change.r ?? [] });
        if (delta.added.length || delta.removed.length) writeTags(row, metadata, tags, delta, userId);
      }
      reverted++;
    }
    db.prepare(`UPDATE bulk_actions SET undone_at = ? WHERE id = ?`).run(at, actionId);
    return { reverted };
  });
}
