import { conflict, invalid } from '../../platform/errors.js';
import type { PgDb, PgRunner } from '../../platform/pgDb.js';
import { mediaEvent } from '../sqlite/eventLog.js';
import { checkMoveDestination, currentParentPath, destinationFolderId } from '../moveDestination.js';
import type { MediaStore } from '../storage.js';
import { appendEvent } from './eventAppend.js';
import type { PgEventHub } from './eventHub.js';
import { activeRow, addStorage, fetchRow, now, type MediaRow, type MediaRowWithText } from './mediaRows.js';
import { dropTags } from './tags.js';

/**
 * Marks the active rows `which` selects (a WHERE clause over media, `$1` the first of `params`) deleted,
 * with their frames, captions and objects (status 'deleted'; object_embeddings stay, as on SQLite: the
 * vector index drops them by its trigger) and tag rows, and frees their bytes; returns their ids.
 */
export async function deleteRows(
  tx: PgRunner,
  which: string,
  params: unknown[],
  organizationId: string,
  userId: string,
  trashId: string | null = null,
): Promise<string[]> {
  const at = now();
  const n = params.length;
  // Frames, captions and objects deleted here carry the item's deleted_at as their updated_at: a restore
  // brings back exactly those (trashStore.ts), not the ones deleted before. `trashId`: the trash entry.
  const rows = await tx.many<{ id: string; size_bytes: number }>(
    `UPDATE media SET status = 'deleted', deleted_at = $${n + 1}, updated_at = $${n + 1}, updated_by = $${n + 2},
       trash_id = $${n + 3}
     WHERE status = 'active' AND (${which}) RETURNING id, size_bytes`,
    [...params, at, userId, trashId],
  );
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  for (const table of ['frames', 'captions', 'detected_objects']) {
    await tx.query(`UPDATE ${table} SET status = 'deleted', updated_at = $1 WHERE media_id = ANY($2::text[])`, [
      at,
      ids,
    ]);
  }
  await dropTags(tx, ids);
  await addStorage(tx, -rows.reduce((sum, row) => sum + row.size_bytes, 0), organizationId);
  return ids;
}

/**
 * Moves one active item (with its versions) or folder (with its subtree) to the trash: its rows deleted under
 * one trash entry (its id), recorded with when, by whom and the folders it was in; one `media.deleted` event.
 */
export async function trashOne(tx: PgRunner, row: MediaRow, userId: string): Promise<number> {
  const deleted =
    row.type === 'folder'
      ? await deleteRows(tx, `path <@ $1::ltree`, [row.path], row.organization_id, userId, row.id)
      : await deleteRows(tx, `root_id = $1`, [row.root_id], row.organization_id, userId, row.id);
  const folders = row.parent_path.split('.').slice(1);
  const names = await tx.many<{ id: string; name: string }>(`SELECT id, name FROM media WHERE id = ANY($1::text[])`, [
    folders,
  ]);
  const byId = new Map(names.map((f) => [f.id, f.name]));
  const location = folders.map((id) => ({ id, name: byId.get(id) ?? '' }));
  await tx.query(
    `INSERT INTO trash (id, dataset_id, organization_id, deleted_at, deleted_by, location)
     SELECT id, dataset_id, organization_id, deleted_at, $2, $3 FROM media WHERE id = $1
     ON CONFLICT (id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at, deleted_by = EXCLUDED.deleted_by,
       location = EXCLUDED.location`,
    [row.id, userId, JSON.stringify(location)],
  );
  const deletedCount = deleted.length;
  // One event for what was deleted: a folder's subtree (paths under its path) and an item's versions
  // (same rootMediaId) go with it.
  await appendEvent(tx, mediaEvent('media.deleted', row, { status: 'deleted', reason: null, deletedCount }));
  return deletedCount;
}

/** Deleting an item (with its versions) or a folder (with its subtree), and moving either. */
export function mediaTree(db: PgDb, hub: PgEventHub): Pick<MediaStore, 'softDelete' | 'move'> {
  return {
    async softDelete(id, userId) {
      const result = await db.tx(async (tx) => ({
        deletedCount: await trashOne(tx, await activeRow(tx, id, true), userId),
      }));
      hub.appended();
      return result;
    },

    // Paths are not searchable and a move stays in its collection: the indexes have nothing to hear of it.
    move: (id, destinationPath, userId) =>
      db.tx(async (tx) => {
        const row = await lockForMove(tx, id, destinationPath);
        const folderId = destinationFolderId(destinationPath);
        checkMoveDestination(row, destinationPath, folderId ? await fetchRow(tx, folderId) : null);
        return moveRow(tx, row, destinationPath, userId);
      }),
  };
}

/**
 * Locks the moved row, every folder above it, the destination folder and every folder above that, in id order (two
 * moves never wait for each other in a circle); returns the moved row as it is once they are locked. Two moves that
 * touch one branch (two folders moved into each other, a folder and the folder above it, a folder and its
 * destination) then run one after the other, and the second checks its destination against the first's result:
 * without the locks both committed, and the folders left paths no folder has (a cycle; items no listing reaches).
 */
async function lockForMove(tx: PgRunner, id: string, destinationPath: string): Promise<MediaRowWithText> {
  const before = await activeRow(tx, id);
  const ids = new Set([...before.path.split('.').slice(1), ...destinationPath.split('.').slice(1)]);
  await tx.query(`SELECT id FROM media WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [[...ids]]);
  const row = await activeRow(tx, id);
  if (row.path !== before.path) throw conflict('the item was moved by another request meanwhile; try again');
  return row;
}

/**
 * The parent path a new row goes under (moveDestination.ts, currentParentPath), inside the inserting transaction.
 * Its folder and the folders above it are held FOR KEY SHARE to the commit: a move or a delete of any of them (which
 * take them FOR UPDATE first) waits for the insert and then carries the new row along, or commits first and the
 * insert reads its result. Without the locks a move whose statement began before the insert committed missed the
 * new row.
 */
export async function lockParent(tx: PgRunner, parentPath: string): Promise<string> {
  const folderId = destinationFolderId(parentPath);
  if (!folderId) return parentPath;
  let path = parentPath;
  for (let tries = 0; ; tries++) {
    await tx.query(`SELECT 1 FROM media WHERE id = ANY($1::text[]) ORDER BY id FOR KEY SHARE`, [
      path.split('.').slice(1),
    ]);
    const folder = await tx.one<{ path: string; status: string; type: string }>(
      `SELECT path::text AS path, status, type FROM media WHERE id = $1`,
      [folderId],
    );
    const now = currentParentPath(parentPath, folder);
    if (now === path) return path;
    if (tries === 2) throw conflict('the folder was moved by another request meanwhile; try again');
    path = now;
  }
}

/** Moves one active row (an item with its versions, or a folder with its subtree); inside the caller's transaction. */
export async function moveRow(tx: PgRunner, row: MediaRow, destinationPath: string, userId: string): Promise<string> {
  const id = row.id;
  const at = now();
  if (row.type === 'folder') {
    if (destinationPath === row.path || destinationPath.startsWith(`${row.path}.`)) {
      throw invalid('a folder cannot be moved into itself or one of its own subfolders');
    }
    // One statement rewrites the prefix of the whole subtree (any status), found through the GiST
    // index on path: `<dest>.<folder id>` replaces the folder's old path in every path below it.
    await tx.query(
      `UPDATE media SET
           path = $2::ltree || subpath(path, nlevel($1::ltree) - 1),
           parent_path = CASE WHEN id = $3 THEN $2::ltree ELSE $2::ltree || subpath(parent_path, nlevel($1::ltree) - 1) END
         WHERE path <@ $1::ltree`,
      [row.path, destinationPath, id],
    );
    await tx.query(`UPDATE media SET updated_at = $1, updated_by = $2 WHERE id = $3`, [at, userId, id]);
    return `${destinationPath}.${row.id}`;
  }
  // An item moves with all its versions, which share its parent folder.
  await tx.query(`UPDATE media SET parent_path = $1::ltree, path = $1::ltree || text2ltree(id) WHERE root_id = $2`, [
    destinationPath,
    row.root_id,
  ]);
  await tx.query(`UPDATE media SET updated_at = $1, updated_by = $2 WHERE id = $3`, [at, userId, id]);
  return `${destinationPath}.${row.id}`;
}
