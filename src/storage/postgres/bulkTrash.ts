/**
 * The bulk store's flag and trash changes on PostgreSQL, as SQLite's bulkTrash.ts: favourite/archive, trash and
 * restore, each recording exactly the items it changed, and their undo. Inside the caller's transaction; the
 * writes are the trash store's own (trashOne, restoreEntry), so counts, tags and the indexes follow.
 */
import { notFound } from '../../platform/errors.js';
import type { PgRunner } from '../../platform/pgDb.js';
import type { FlagPatch, RecordedChange } from '../bulkStore.js';
import { fetchRow } from './mediaRows.js';
import { trashOne } from './mediaTree.js';
import { restoreEntry } from './trashStore.js';

/** Sets one item's flags on every version (the one browse shows may change). */
async function applyFlags(tx: PgRunner, id: string, patch: FlagPatch): Promise<void> {
  await tx.query(
    `UPDATE media SET favorite = coalesce($2::boolean, favorite), archived = coalesce($3::boolean, archived)
     WHERE root_id = (SELECT root_id FROM media WHERE id = $1)
       AND (coalesce($2::boolean, favorite) <> favorite OR coalesce($3::boolean, archived) <> archived)`,
    [id, patch.favorite ?? null, patch.archived ?? null],
  );
}

/** Sets the flags of active items (the caller checked them); the changes are those whose flags differed. */
export async function bulkSetFlags(tx: PgRunner, ids: string[], patch: FlagPatch): Promise<RecordedChange[]> {
  const rows = await tx.many<{ id: string; favorite: boolean; archived: boolean }>(
    `SELECT id, favorite, archived FROM media WHERE id = ANY($1::text[]) AND status = 'active' ORDER BY id`,
    [ids],
  );
  const changes: RecordedChange[] = [];
  for (const r of rows) {
    const before: FlagPatch = {};
    if (patch.favorite !== undefined && r.favorite !== patch.favorite) before.favorite = !patch.favorite;
    if (patch.archived !== undefined && r.archived !== patch.archived) before.archived = !patch.archived;
    if (Object.keys(before).length === 0) continue;
    await applyFlags(tx, r.id, patch);
    changes.push({ id: r.id, flags: before });
  }
  return changes;
}

/** Trashes the items still active when their turn comes (a folder earlier in the list may have taken them). */
export async function bulkTrash(tx: PgRunner, ids: string[], userId: string): Promise<RecordedChange[]> {
  const changes: RecordedChange[] = [];
  for (const id of ids) {
    const row = await fetchRow(tx, id, true);
    if (row && row.status === 'active' && (await trashOne(tx, row, userId)) > 0) changes.push({ id, trashed: true });
  }
  return changes;
}

/** Restores the organization's trash entries among the ids; an id of another's is not found. */
export async function bulkRestore(tx: PgRunner, ids: string[], organizationId: string): Promise<RecordedChange[]> {
  const rows = await tx.many<{ id: string; organization_id: string; deleted_at: string; deleted_by: string }>(
    `SELECT id, organization_id, deleted_at::text AS deleted_at, deleted_by FROM trash WHERE id = ANY($1::text[])
     ORDER BY id FOR UPDATE`,
    [ids],
  );
  const foreign = rows.find((r) => r.organization_id !== organizationId);
  if (foreign) throw notFound(`media not found: ${foreign.id}`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const changes: RecordedChange[] = [];
  for (const id of ids) {
    const r = byId.get(id);
    if (r && (await restoreEntry(tx, id)) > 0) changes.push({ id, restored: { at: r.deleted_at, by: r.deleted_by } });
  }
  return changes;
}

/** Reverses one recorded flag or trash change; whether it did (an item gone or changed since is left out). */
export async function undoTrashOrFlag(tx: PgRunner, change: RecordedChange, userId: string): Promise<boolean> {
  if (change.trashed) return (await restoreEntry(tx, change.id)) > 0;
  const row = await fetchRow(tx, change.id, true);
  if (!row || row.status !== 'active') return false;
  if (change.flags) {
    await applyFlags(tx, row.id, change.flags);
    return true;
  }
  if (!change.restored || (await trashOne(tx, row, userId)) === 0) return false;
  await tx.query(`UPDATE trash SET deleted_at = $1::timestamptz, deleted_by = $2 WHERE id = $3`, [
    change.restored.at,
    change.restored.by,
    row.id,
  ]);
  return true;
}
