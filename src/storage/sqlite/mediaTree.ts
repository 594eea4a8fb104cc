import { invalid } from '../../platform/errors.js';
import { checkMoveDestination, destinationFolderId } from '../moveDestination.js';
import type { MediaStore } from '../storage.js';
import { mediaEvent } from './eventLog.js';
import { now, type MediaCore } from './mediaCore.js';
import { dropTags } from './tagIndex.js';
import { moveFolderScopes } from './scopeMove.js';
import type { MediaRow } from './rows.js';
import type { TrashPlace } from '../trash.js';

/** `path > 'p.' AND path < 'p/'` selects every descendant of p: '/' is the character after '.'. */
export const subtreeBounds = (path: string): [string, string] => [`${path}.`, `${path}/`];

/** The rows a delete takes: their ids, and their bytes for the organization's storage total. */
export type DeletedRow = { id: string; size_bytes: number };

/**
 * Marks these rows deleted with everything hanging off them; returns how many changed. `trashId` names the
 * trash entry they go to (migration 027); without it (one version deleted) they belong to none.
 */
export type RowDeleter = (rows: DeletedRow[], organizationId: string, userId: string, trashId?: string) => number;

export function rowDeleter({ db, writers, addStorage }: MediaCore): RowDeleter {
  const { vectors, text } = writers;
  return (rows, organizationId, userId, trashId) => {
    if (rows.length === 0) return 0;
    const mediaIds = rows.map((row) => row.id);
    const ids = JSON.stringify(mediaIds);
    const at = now();
    db.prepare(
      `UPDATE media SET status = 'deleted', deleted_at = ?, updated_at = ?, updated_by = ?, trash_id = ?
       WHERE id IN (SELECT value FROM json_each(?))`,
    ).run(at, at, userId, trashId ?? null, ids);
    // Frames, captions and objects deleted here carry the item's deleted_at as their updated_at: a restore
    // brings back exactly those (sqliteTrash), not the ones deleted before.
    // The items stop being live: every text index row of theirs goes, their frames', captions' and objects'
    // included, so the status changes below have nothing left to drop.
    text.reindexMedia(mediaIds);
    for (const table of ['frames', 'captions', 'detected_objects']) {
      db.prepare(
        `UPDATE ${table} SET status = 'deleted', updated_at = ? WHERE media_id IN (SELECT value FROM json_each(?))`,
      ).run(at, ids);
    }
    dropTags(db, text, mediaIds);
    vectors.removeMedia(mediaIds);
    addStorage(-rows.reduce((sum, row) => sum + row.size_bytes, 0), organizationId);
    return rows.length;
  };
}

/**
 * Moves one active item (with its versions) or folder (with its subtree) to the trash: its rows deleted under
 * one trash entry (its id), recorded with when, by whom and the folders it was in; one `media.deleted` event.
 */
export function trashOne(core: MediaCore, deleteRows: RowDeleter): (row: MediaRow, userId: string) => number {
  const { db } = core;
  const names = db.prepare(`SELECT id, name FROM media WHERE id IN (SELECT value FROM json_each(?))`);
  const entry = db.prepare(
    `INSERT OR REPLACE INTO trash (id, dataset_id, organization_id, deleted_at, deleted_by, location)
     SELECT id, dataset_id, organization_id, deleted_at, ?, ? FROM media WHERE id = ?`,
  );
  return (row, userId) => {
    let rows: DeletedRow[];
    if (row.type === 'folder') {
      const [lo, hi] = subtreeBounds(row.path);
      rows = db
        .prepare(`SELECT id, size_bytes FROM media WHERE status = 'active' AND (id = ? OR (path > ? AND path < ?))`)
        .all(row.id, lo, hi) as DeletedRow[];
    } else {
      rows = db
        .prepare(`SELECT id, size_bytes FROM media WHERE status = 'active' AND root_id = ?`)
        .all(row.root_id) as DeletedRow[];
    }
    const folders = row.parent_path.split('.').slice(1);
    const byId = new Map((names.all(JSON.stringify(folders)) as TrashPlace[]).map((f) => [f.id, f.name]));
    const location = folders.map((id) => ({ id, name: byId.get(id) ?? '' }));
    const deletedCount = deleteRows(rows, row.organization_id, userId, row.id);
    entry.run(userId, JSON.stringify(location), row.id);
    // One event for what was deleted: a folder's subtree (paths under its path) and an item's versions
    // (same rootMediaId) go with it.
    core.events.append(mediaEvent('media.deleted', row, { status: 'deleted', reason: null, deletedCount }));
    return deletedCount;
  };
}

/** Deleting an item (with its versions) or a folder (with its subtree), and moving either. */
export function mediaTree(core: MediaCore, deleteRows: RowDeleter): Pick<MediaStore, 'softDelete' | 'move'> {
  const { db, activeRow } = core;
  const toTrash = trashOne(core, deleteRows);
  const softDelete = db.transaction((id: string, userId: string) => ({
    deletedCount: toTrash(activeRow(id), userId),
  }));

  // Paths are not searchable and a move stays in its collection: the indexes have nothing to hear of it.
  // An item's browse scopes follow it by trigger (migration 017), a folder's subtree's in moveFolderScopes.
  const moveOne = rowMover(core);
  // The destination is checked again inside the transaction: another request's move may have committed since the
  // use case looked (moveDestination.ts).
  const move = db.transaction((id: string, destinationPath: string, userId: string) => {
    const row = activeRow(id);
    const folderId = destinationFolderId(destinationPath);
    checkMoveDestination(row, destinationPath, folderId ? core.fetchRow(folderId) : null);
    return moveOne(row, destinationPath, userId);
  });

  return {
    softDelete: async (id, userId) => softDelete(id, userId),
    move: async (id, destinationPath, userId) => move(id, destinationPath, userId),
  };
}

/** The columns of a row a move reads. */
export type MovedRow = Pick<MediaRow, 'id' | 'type' | 'path' | 'parent_path' | 'root_id'>;

/** Moves one active row (an item with its versions, or a folder with its subtree); inside the caller's transaction. */
export function rowMover({ db }: MediaCore): (row: MovedRow, destinationPath: string, userId: string) => string {
  return (row, destinationPath, userId) => {
    const id = row.id;
    const at = now();
    if (row.type === 'folder') {
      if (destinationPath === row.path || destinationPath.startsWith(`${row.path}.`)) {
        throw invalid('a folder cannot be moved into itself or one of its own subfolders');
      }
      const newPath = `${destinationPath}.${row.id}`;
      const [lo, hi] = subtreeBounds(row.path);
      // One statement rewrites the prefix of the whole subtree, using the path index for the range;
      // the browse scopes follow in a few set statements (scopeMove.ts).
      moveFolderScopes(db, { id, parentPath: row.parent_path }, destinationPath, () =>
        db
          .prepare(
            `UPDATE media SET
               path = @newPath || substr(path, @oldLen + 1),
               parent_path = CASE WHEN id = @id THEN @dest ELSE @newPath || substr(parent_path, @oldLen + 1) END
             WHERE id = @id OR (path > @lo AND path < @hi)`,
          )
          .run({ newPath, oldLen: row.path.length, id, dest: destinationPath, lo, hi }),
      );
      db.prepare(`UPDATE media SET updated_at = ?, updated_by = ? WHERE id = ?`).run(at, userId, id);
      return newPath;
    }
    // An item moves with all its versions, which share its parent folder.
    db.prepare(`UPDATE media SET parent_path = ?, path = ? || '.' || id WHERE root_id = ?`).run(
      destinationPath,
      destinationPath,
      row.root_id,
    );
    db.prepare(`UPDATE media SET updated_at = ?, updated_by = ? WHERE id = ?`).run(at, userId, id);
    return `${destinationPath}.${row.id}`;
  };
}
