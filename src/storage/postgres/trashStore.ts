/**
 * Favourite and archive flags, and the trash on PostgreSQL (migration 060), as SQLite's trashStore.ts: many
 * items at once, each method one transaction. The text and vector indexes follow the status changes by
 * their own triggers; tags and the storage counter are written here.
 */
import type { PgDb, PgRunner } from '../../platform/pgDb.js';
import { mediaEvent } from '../sqlite/eventLog.js';
import { toMedia } from '../sqlite/rows.js';
import type { MediaStore } from '../storage.js';
import type { TrashEntry, TrashPlace, TrashReads } from '../trash.js';
import { appendEvent } from './eventAppend.js';
import type { PgEventHub } from './eventHub.js';
import { addStorage, fetchRow, mediaColumns, mustRow, now, type MediaRow } from './mediaRows.js';
import { trashOne } from './mediaTree.js';
import { syncTags } from './tags.js';

type TrashRow = {
  id: string;
  dataset_id: string;
  organization_id: string;
  deleted_at: string;
  deleted_by: string;
  location: string;
  row_count: number;
  thumbnail_key: string | null;
};

const ENTRY_COLUMNS = `t.id, t.dataset_id, t.organization_id, t.deleted_at, t.deleted_by, t.location::text AS location,
  (SELECT count(*) FROM media r WHERE r.trash_id = t.id AND r.status = 'deleted')::int AS row_count,
  (SELECT f.thumbnail_key FROM frames f WHERE f.media_id = t.id AND f.thumbnail_key IS NOT NULL
   ORDER BY f.created_at, f.id LIMIT 1) AS thumbnail_key`;

export function pgTrash(
  db: PgDb,
  hub: PgEventHub,
): Pick<MediaStore, 'setFlags' | 'trash' | 'restore' | keyof TrashReads> {
  /** Runs `fn` in a transaction and tells this process's streams of the events it appended. */
  const withEvents = async <T>(fn: (tx: PgRunner) => Promise<T>): Promise<T> => {
    const result = await db.tx(fn);
    hub.appended();
    return result;
  };

  return {
    setFlags: (ids, patch) =>
      db.tx(async (tx) => {
        const params = [ids, patch.favorite ?? null, patch.archived ?? null];
        const differs = `(coalesce($2::boolean, favorite) <> favorite OR coalesce($3::boolean, archived) <> archived)`;
        const changed = await tx.one<{ n: number }>(
          `SELECT count(*)::int AS n FROM media WHERE id = ANY($1::text[]) AND status = 'active' AND ${differs}`,
          params,
        );
        // Every version carries the item's flags: the one browse shows may change.
        await tx.query(
          `UPDATE media SET favorite = coalesce($2::boolean, favorite), archived = coalesce($3::boolean, archived)
           WHERE root_id IN (SELECT root_id FROM media WHERE id = ANY($1::text[]) AND status = 'active') AND ${differs}`,
          params,
        );
        return changed?.n ?? 0;
      }),

    trash: (ids, userId) =>
      withEvents(async (tx) => {
        let deletedCount = 0;
        for (const id of ids) {
          const row = await fetchRow(tx, id, true);
          if (row && row.status === 'active') deletedCount += await trashOne(tx, row, userId);
        }
        return { deletedCount };
      }),

    restore: (ids) =>
      withEvents(async (tx) => {
        let restoredCount = 0;
        for (const id of ids) restoredCount += await restoreEntry(tx, id);
        return { restoredCount };
      }),

    purgeTrash: (ids) =>
      db.tx(async (tx) => {
        const entries = await tx.many<{ id: string }>(`SELECT id FROM trash WHERE id = ANY($1::text[]) FOR UPDATE`, [
          ids,
        ]);
        const blobKeys = new Set<string>();
        for (const { id } of entries) for (const key of await purgeEntry(tx, id)) blobKeys.add(key);
        return { purged: entries.length, blobKeys: [...blobKeys] };
      }),

    ...trashReads(db),
  };
}

/** The trash's reads: a page, some entries, the entries older than a time. */
function trashReads(db: PgDb): Omit<TrashReads, 'purgeTrash'> {
  const toEntries = async (q: PgRunner, rows: TrashRow[]): Promise<TrashEntry[]> => {
    const out: TrashEntry[] = [];
    for (const row of rows) {
      out.push({
        id: row.id,
        collectionId: row.dataset_id,
        organizationId: row.organization_id,
        deletedAt: row.deleted_at,
        deletedById: row.deleted_by,
        location: JSON.parse(row.location) as TrashPlace[],
        item: toMedia(await mustRow(q, row.id)),
        rowCount: row.row_count,
        thumbnailKey: row.thumbnail_key,
      });
    }
    return out;
  };
  return {
    listTrash: (collectionId, page) =>
      db.tx(async (tx) => {
        const total = await tx.one<{ n: number }>(`SELECT count(*)::int AS n FROM trash WHERE dataset_id = $1`, [
          collectionId,
        ]);
        const rows = await tx.many<TrashRow>(
          `SELECT ${ENTRY_COLUMNS} FROM trash t WHERE t.dataset_id = $1
           ORDER BY t.deleted_at DESC, t.id DESC LIMIT $2 OFFSET $3`,
          [collectionId, page.limit, page.offset],
        );
        return { entries: await toEntries(tx, rows), total: total?.n ?? 0 };
      }),

    trashEntries: async (ids) =>
      toEntries(
        db,
        await db.many<TrashRow>(`SELECT ${ENTRY_COLUMNS} FROM trash t WHERE t.id = ANY($1::text[])`, [ids]),
      ),

    trashBefore: async (before, collectionId, limit) =>
      (
        await db.many<{ id: string }>(
          `SELECT id FROM trash WHERE deleted_at < $1::timestamptz AND ($2::text IS NULL OR dataset_id = $2)
           ORDER BY deleted_at, id LIMIT $3`,
          [before, collectionId, limit],
        )
      ).map((r) => r.id),
  };
}

/**
 * Makes the folders on the way to the row active again: a deleted one (its row alone, out of its trash
 * entry), a purged one made again with its id and its name at the time (`location`).
 */
async function reviveFolders(tx: PgRunner, row: MediaRow, location: TrashPlace[], at: string): Promise<void> {
  const labels = row.parent_path.split('.');
  for (let i = 1; i < labels.length; i++) {
    const id = labels[i];
    const folder = await fetchRow(tx, id, true);
    if (folder?.status === 'active') continue;
    if (folder) {
      await tx.query(
        `UPDATE media SET status = 'active', deleted_at = NULL, trash_id = NULL, updated_at = $1 WHERE id = $2`,
        [at, id],
      );
    } else {
      const name = location.find((place) => place.id === id)?.name || 'Restored';
      await tx.query(
        `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, status, processing_status,
           root_id, is_current, created_at, updated_at, created_by)
         VALUES ($1, $2, $3, $4::ltree, $5::ltree, 'folder', $6, 'active', 'ready', $1, true, $7, $7, $8)`,
        [
          id,
          row.dataset_id,
          row.organization_id,
          labels.slice(0, i + 1).join('.'),
          labels.slice(0, i).join('.'),
          name,
          at,
          row.updated_by ?? row.created_by,
        ],
      );
    }
    await appendEvent(tx, mediaEvent('media.created', (await fetchRow(tx, id))!));
  }
}

/** One trash entry back where it was; how many media rows became active. */
export async function restoreEntry(tx: PgRunner, id: string): Promise<number> {
  const entry = await tx.one<{ location: string }>(
    `SELECT location::text AS location FROM trash WHERE id = $1 FOR UPDATE`,
    [id],
  );
  const root = await fetchRow(tx, id, true);
  if (!entry || !root) return 0;
  const at = now();
  await reviveFolders(tx, root, JSON.parse(entry.location) as TrashPlace[], at);
  const rows = await tx.many<MediaRow & { deleted_at: string }>(
    `SELECT ${mediaColumns()}, deleted_at FROM media WHERE trash_id = $1 AND status = 'deleted'`,
    [id],
  );
  const ids = rows.map((r) => r.id);
  // What the delete took with the rows (their updated_at is the row's deleted_at), not what was deleted before.
  for (const table of ['frames', 'captions', 'detected_objects']) {
    await tx.query(
      `UPDATE ${table} c SET status = 'active', updated_at = $1 FROM media m
       WHERE m.id = c.media_id AND c.media_id = ANY($2::text[]) AND c.status = 'deleted' AND c.updated_at = m.deleted_at`,
      [at, ids],
    );
  }
  await tx.query(
    `UPDATE media SET status = 'active', deleted_at = NULL, trash_id = NULL, updated_at = $1 WHERE id = ANY($2::text[])`,
    [at, ids],
  );
  for (const r of rows) await syncTags(tx, r.id, r.dataset_id, r.is_current === 1, JSON.parse(r.metadata));
  await addStorage(
    tx,
    rows.reduce((sum, r) => sum + Number(r.size_bytes), 0),
    root.organization_id,
  );
  await tx.query(`DELETE FROM trash WHERE id = $1`, [id]);
  await appendEvent(tx, mediaEvent('media.created', (await fetchRow(tx, id))!));
  return rows.length;
}

/** Deletes one entry's rows for good; returns the blob keys they referenced. */
async function purgeEntry(tx: PgRunner, id: string): Promise<string[]> {
  const ids = (await tx.many<{ id: string }>(`SELECT id FROM media WHERE trash_id = $1`, [id])).map((r) => r.id);
  const keys = await tx.many<{ k: string | null }>(
    `SELECT blob_key AS k FROM media WHERE id = ANY($1::text[])
     UNION SELECT exif->'webVideo'->>'key' FROM media WHERE id = ANY($1::text[])
     UNION SELECT exif->'livePhoto'->>'key' FROM media WHERE id = ANY($1::text[])
     UNION SELECT blob_key FROM frames WHERE media_id = ANY($1::text[])
     UNION SELECT thumbnail_key FROM frames WHERE media_id = ANY($1::text[])
     UNION SELECT preview_key FROM frames WHERE media_id = ANY($1::text[])
     UNION SELECT blob_key FROM detected_objects WHERE media_id = ANY($1::text[])`,
    [ids],
  );
  const objects = `(SELECT id FROM detected_objects WHERE media_id = ANY($1::text[]))`;
  // The embeddings' trigger (migration 040) takes their faces out of the queue and out of their clusters, the
  // clusters' sizes down with them, as SQLite's does: deleting cluster_members here first skipped the sizes.
  await tx.query(`DELETE FROM object_embeddings WHERE object_id IN ${objects}`, [ids]);
  await tx.query(`DELETE FROM cluster_pending WHERE object_id IN ${objects}`, [ids]);
  await tx.query(`DELETE FROM cluster_pins WHERE object_id IN ${objects}`, [ids]);
  // Children first (captions and objects name their frame).
  for (const table of ['captions', 'detected_objects', 'frames', 'media_stages', 'media_tags'])
    await tx.query(`DELETE FROM ${table} WHERE media_id = ANY($1::text[])`, [ids]);
  await tx.query(`DELETE FROM media WHERE id = ANY($1::text[])`, [ids]);
  await tx.query(`DELETE FROM trash WHERE id = $1`, [id]);
  return keys.map((r) => r.k).filter((k): k is string => typeof k === 'string' && k.length > 0);
}
