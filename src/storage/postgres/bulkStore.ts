/**
 * Bulk changes on PostgreSQL (storage/bulkStore.ts): one transaction each, the rows locked a chunk at a time,
 * metadata and tag rows written in set statements (unnest); the text index follows media_tags by its triggers.
 */
import { conflict, notFound } from '../../platform/errors.js';
import { pgTimestampToIso, type PgDb, type PgRunner } from '../../platform/pgDb.js';
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
import type { Metadata } from '../types.js';
import { bulkRestore, bulkSetFlags, bulkTrash, undoTrashOrFlag } from './bulkTrash.js';
import type { PgEventHub } from './eventHub.js';
import { fetchRow, MEDIA_COLUMNS, now, type MediaRow } from './mediaRows.js';
import { moveRow } from './mediaTree.js';

const CHUNK = 5000;

const ACTION_COLUMNS = `id, organization_id, user_id, operation, changed_count, changes, created_at::text AS created_at,
  undone_at::text AS undone_at`;

/** The rows of these ids, a chunk at a time, locked; each active and in the organization, else not found. */
async function* rowsOf(
  tx: PgRunner,
  ids: string[],
  organizationId: string,
  skipGone = false,
): AsyncGenerator<MediaRow[]> {
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    const rows = await tx.many<MediaRow>(
      `SELECT ${MEDIA_COLUMNS} FROM media WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
      [chunk],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const out: MediaRow[] = [];
    for (const id of chunk) {
      const row = byId.get(id);
      if (!row || row.status !== 'active' || row.organization_id !== organizationId) {
        if (skipGone && row?.organization_id === organizationId) continue;
        throw notFound(`media not found: ${id}`);
      }
      out.push(row);
    }
    yield out;
  }
}

interface TagWrite {
  row: MediaRow;
  metadata: string;
  delta: TagDelta;
}

/** Writes a chunk's new metadata and the tag rows that changed, in four set statements. */
async function writeTags(tx: PgRunner, writes: TagWrite[], userId: string): Promise<void> {
  if (writes.length === 0) return;
  await tx.query(
    `UPDATE media m SET metadata = u.md::jsonb, updated_at = $3, updated_by = $4
     FROM unnest($1::text[], $2::text[]) AS u(id, md) WHERE m.id = u.id`,
    [writes.map((w) => w.row.id), writes.map((w) => w.metadata), now(), userId],
  );
  const rows = (pick: (d: TagDelta) => Array<[string, string]>) => {
    const ids: string[] = [];
    const colls: string[] = [];
    const groups: string[] = [];
    const values: string[] = [];
    for (const w of writes) {
      if (w.row.is_current !== 1) continue;
      for (const [g, v] of pick(w.delta)) {
        ids.push(w.row.id);
        colls.push(w.row.dataset_id);
        groups.push(g);
        values.push(v);
      }
    }
    return { ids, colls, groups, values };
  };
  const gone = rows((d) => d.removed);
  if (gone.ids.length)
    await tx.query(
      `DELETE FROM media_tags t USING unnest($1::text[], $2::text[], $3::text[]) AS d(id, g, v)
       WHERE t.media_id = d.id AND t.grp = d.g AND t.value = d.v`,
      [gone.ids, gone.groups, gone.values],
    );
  const added = rows((d) => d.added);
  if (added.ids.length)
    await tx.query(
      `INSERT INTO media_tags (media_id, dataset_id, grp, value)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING`,
      [added.ids, added.colls, added.groups, added.values],
    );
}

async function record(tx: PgRunner, action: NewBulkAction, changes: RecordedChange[]): Promise<void> {
  await tx.query(`DELETE FROM bulk_actions WHERE organization_id = $1 AND user_id = $2`, [
    action.organizationId,
    action.userId,
  ]);
  await tx.query(
    `INSERT INTO bulk_actions (id, organization_id, user_id, operation, changed_count, changes, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      action.id,
      action.organizationId,
      action.userId,
      JSON.stringify(action.operation),
      changes.length,
      JSON.stringify(changes),
      now(),
    ],
  );
}

const changeOf = (id: string, delta: TagDelta): RecordedChange => ({
  id,
  ...(delta.added.length ? { a: delta.added } : {}),
  ...(delta.removed.length ? { r: delta.removed } : {}),
});

async function isLiveFolderOrRoot(tx: PgRunner, path: string, row: MediaRow): Promise<boolean> {
  if (!path.includes('.')) return path === row.path.split('.')[0];
  const folder = await fetchRow(tx, path.slice(path.lastIndexOf('.') + 1));
  return !!folder && folder.status === 'active' && folder.type === 'folder' && folder.path === path;
}

/** Ids of the active items of the organization, checked and locked (rowsOf). */
async function checkedIds(tx: PgRunner, ids: string[], organizationId: string): Promise<string[]> {
  const out: string[] = [];
  for await (const rows of rowsOf(tx, ids, organizationId)) out.push(...rows.map((r) => r.id));
  return out;
}

export function pgBulkStore(db: PgDb, hub: PgEventHub): BulkStore {
  /** One recorded change in a transaction; this process's event streams hear of the events it appended. */
  const recorded = async (action: NewBulkAction, ids: string[], fn: (tx: PgRunner) => Promise<RecordedChange[]>) => {
    const changes = await db.tx(async (tx) => {
      const out = await fn(tx);
      if (out.length) await record(tx, action, out);
      return out;
    });
    hub.appended();
    return { changed: changes.length, unchanged: ids.length - changes.length };
  };
  return {
    setFlags: (action, ids, patch) =>
      recorded(action, ids, async (tx) => bulkSetFlags(tx, await checkedIds(tx, ids, action.organizationId), patch)),
    trash: (action, ids) =>
      recorded(action, ids, async (tx) =>
        bulkTrash(tx, await checkedIds(tx, ids, action.organizationId), action.userId),
      ),
    restore: (action, ids) => recorded(action, ids, (tx) => bulkRestore(tx, ids, action.organizationId)),

    editTags: (action, ids, edit) =>
      db.tx(async (tx) => {
        const changes: RecordedChange[] = [];
        for await (const rows of rowsOf(tx, ids, action.organizationId)) {
          const writes: TagWrite[] = [];
          for (const row of rows) {
            const metadata = JSON.parse(row.metadata) as Metadata;
            const tags = tagMap(metadata);
            const delta = applyTagEdit(tags, edit);
            if (!delta.added.length && !delta.removed.length) continue;
            writes.push({ row, metadata: JSON.stringify(withTags(metadata, tags)), delta });
            changes.push(changeOf(row.id, delta));
          }
          await writeTags(tx, writes, action.userId);
        }
        if (changes.length) await record(tx, action, changes);
        return { changed: changes.length, unchanged: ids.length - changes.length };
      }),

    move: (action, ids, destinationPath) =>
      db.tx(async (tx) => {
        const changes: RecordedChange[] = [];
        for await (const rows of rowsOf(tx, ids, action.organizationId)) {
          for (const row of rows) {
            if (row.parent_path === destinationPath) continue;
            changes.push({ id: row.id, from: row.parent_path });
            await moveRow(tx, row, destinationPath, action.userId);
          }
        }
        if (changes.length) await record(tx, action, changes);
        return { changed: changes.length, unchanged: ids.length - changes.length };
      }),

    last: async (organizationId, userId) => {
      const row = await db.one<ActionRow>(
        `SELECT ${ACTION_COLUMNS} FROM bulk_actions WHERE organization_id = $1 AND user_id = $2
         ORDER BY created_at DESC LIMIT 1`,
        [organizationId, userId],
      );
      return row ? toBulkAction(row, pgTimestampToIso) : null;
    },

    undo: async (actionId, organizationId, userId) => {
      const out = await db.tx((tx) => undoAction(tx, actionId, organizationId, userId));
      hub.appended();
      return out;
    },
  };
}

/** BulkStore.undo inside its transaction: the recorded changes reversed. */
async function undoAction(tx: PgRunner, actionId: string, organizationId: string, userId: string) {
  const action = await tx.one<ActionRow>(
    `SELECT ${ACTION_COLUMNS} FROM bulk_actions WHERE id = $1 AND organization_id = $2 AND user_id = $3
       FOR UPDATE`,
    [actionId, organizationId, userId],
  );
  if (!action) throw notFound('no such bulk action to undo (only your last one can be undone)');
  if (action.undone_at) throw conflict('this bulk action was undone already');
  const changes = JSON.parse(action.changes) as RecordedChange[];
  const byId = new Map(changes.filter((c) => !isTrashOrFlag(c)).map((c) => [c.id, c]));
  let reverted = 0;
  // The flag and trash changes first, last change first (the reverse of the order they were made in).
  for (const c of changes.filter(isTrashOrFlag).reverse()) if (await undoTrashOrFlag(tx, c, userId)) reverted++;
  for await (const rows of rowsOf(tx, [...byId.keys()], organizationId, true)) {
    const writes: TagWrite[] = [];
    for (const row of rows) {
      const change = byId.get(row.id)!;
      reverted++;
      if (change.from !== undefined) {
        if (!(await isLiveFolderOrRoot(tx, change.from, row)))
          throw conflict('an item cannot go back: the folder it was in is gone');
        if (row.parent_path !== change.from) await moveRow(tx, row, change.from, userId);
        continue;
      }
      const metadata = JSON.parse(row.metadata) as Metadata;
      const tags = tagMap(metadata);
      const delta = revertDelta(tags, { added: change.a ?? [], removed: change.r ?? [] });
      if (delta.added.length || delta.removed.length)
        writes.push({ row, metadata: JSON.stringify(withTags(metadata, tags)), delta });
    }
    await writeTags(tx, writes, userId);
  }
  await tx.query(`UPDATE bulk_actions SET undone_at = $1 WHERE id = $2`, [now(), actionId]);
  return { reverted };
}
