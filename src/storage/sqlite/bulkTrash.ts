/**
 * The bulk store's flag and trash changes on SQLite (storage/bulkStore.ts): favourite/archive, trash and restore,
 * each recording exactly the items it changed, and their undo. Inside the caller's transaction; the writes are
 * the trash store's own (trashOne, restoreEntry), so counts, tags and the indexes follow as they do there.
 */
import { notFound } from '../../platform/errors.js';
import type { FlagPatch, RecordedChange } from '../bulkStore.js';
import type { MediaCore } from './mediaCore.js';
import { rowDeleter, trashOne } from './mediaTree.js';
import { restoreEntry } from './trashStore.js';

const IN_IDS = `IN (SELECT value FROM json_each(?))`;
const bit = (v: boolean | undefined) => (v === undefined ? null : v ? 1 : 0);

export function bulkTrashOps(core: MediaCore) {
  const { db, fetchRow } = core;
  const toTrash = trashOne(core, rowDeleter(core));
  const flagsOf = db.prepare(`SELECT id, favorite, archived FROM media WHERE id ${IN_IDS} AND status = 'active'`);
  // Every version carries the item's flags: the one browse shows may change.
  const setRootFlags = db.prepare(
    `UPDATE media SET favorite = coalesce(?, favorite), archived = coalesce(?, archived)
     WHERE root_id = (SELECT root_id FROM media WHERE id = ?)
       AND (coalesce(?, favorite) != favorite OR coalesce(?, archived) != archived)`,
  );
  const applyFlags = (id: string, patch: FlagPatch) => {
    const [fav, arch] = [bit(patch.favorite), bit(patch.archived)];
    setRootFlags.run(fav, arch, id, fav, arch);
  };
  const entriesOf = db.prepare(`SELECT id, deleted_at, deleted_by FROM trash WHERE id ${IN_IDS}`);
  const entryOrg = db.prepare(`SELECT organization_id FROM trash WHERE id = ?`).pluck();
  const setDeleted = db.prepare(`UPDATE trash SET deleted_at = ?, deleted_by = ? WHERE id = ?`);

  return {
    /** Sets the flags of active items (the caller checked them); the changes are those whose flags differed. */
    setFlags(ids: string[], patch: FlagPatch): RecordedChange[] {
      const rows = flagsOf.all(JSON.stringify(ids)) as Array<{ id: string; favorite: number; archived: number }>;
      const changes: RecordedChange[] = [];
      for (const r of rows) {
        const before: FlagPatch = {};
        if (patch.favorite !== undefined && Boolean(r.favorite) !== patch.favorite) before.favorite = !patch.favorite;
        if (patch.archived !== undefined && Boolean(r.archived) !== patch.archived) before.archived = !patch.archived;
        if (Object.keys(before).length === 0) continue;
        applyFlags(r.id, patch);
        changes.push({ id: r.id, flags: before });
      }
      return changes;
    },

    /** Trashes the items still active when their turn comes (a folder earlier in the list may have taken them). */
    trash(ids: string[], userId: string): RecordedChange[] {
      const changes: RecordedChange[] = [];
      for (const id of ids) {
        const row = fetchRow(id);
        if (row && row.status === 'active' && toTrash(row, userId) > 0) changes.push({ id, trashed: true });
      }
      return changes;
    },

    /** Restores the organization's trash entries among the ids; an id of another's is not found. */
    restore(ids: string[], organizationId: string): RecordedChange[] {
      for (const id of ids) {
        const org = entryOrg.get(id) as string | undefined;
        if (org !== undefined && org !== organizationId) throw notFound(`media not found: ${id}`);
      }
      const rows = entriesOf.all(JSON.stringify(ids)) as Array<{ id: string; deleted_at: string; deleted_by: string }>;
      const byId = new Map(rows.map((r) => [r.id, r]));
      const changes: RecordedChange[] = [];
      for (const id of ids) {
        const r = byId.get(id);
        if (r && restoreEntry(core, id) > 0) changes.push({ id, restored: { at: r.deleted_at, by: r.deleted_by } });
      }
      return changes;
    },

    /** Reverses one recorded flag or trash change; whether it did (an item gone or changed since is left out). */
    undo(change: RecordedChange, userId: string): boolean {
      if (change.trashed) return restoreEntry(core, change.id) > 0;
      const row = fetchRow(change.id);
      if (!row || row.status !== 'active') return false;
      if (change.flags) {
        applyFlags(row.id, change.flags);
        return true;
      }
      if (!change.restored || toTrash(row, userId) === 0) return false;
      setDeleted.run(change.restored.at, change.restored.by, row.id);
      return true;
    },
  };
}
