/**
 * Favourite and archive flags, and the trash (migration 027, SCHEMA.md "Trash and flags"): many items at once,
 * each method one transaction. Deleting is mediaTree.ts's trashOne (softDelete names one item, trash many).
 */
import type { MediaStore } from '../storage.js';
import type { TrashEntry, TrashPlace, TrashReads } from '../trash.js';
import type { VectorRow } from '../../index/vector/types.js';
import { mediaEvent } from './eventLog.js';
import { now, type MediaCore } from './mediaCore.js';
import { trashOne, type RowDeleter } from './mediaTree.js';
import { toMedia, type MediaRow } from './rows.js';
import { syncTags } from './tagIndex.js';

const IN_IDS = `IN (SELECT value FROM json_each(?))`;
const VALID_EXIF = `CASE WHEN json_valid(exif) THEN exif END`;

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

const ENTRY_COLUMNS = `t.id, t.dataset_id, t.organization_id, t.deleted_at, t.deleted_by, t.location,
  (SELECT count(*) FROM media r WHERE r.trash_id = t.id AND r.status = 'deleted') AS row_count,
  (SELECT f.thumbnail_key FROM frames f WHERE f.media_id = t.id AND f.thumbnail_key IS NOT NULL
   ORDER BY f.created_at, f.id LIMIT 1) AS thumbnail_key`;

export function sqliteTrash(
  core: MediaCore,
  deleteRows: RowDeleter,
): Pick<MediaStore, 'setFlags' | 'trash' | 'restore' | keyof TrashReads> {
  const { db, fetchRow } = core;
  const toTrash = trashOne(core, deleteRows);

  const setFlags = db.transaction((ids: string[], patch: { favorite?: boolean; archived?: boolean }) => {
    const fav = patch.favorite === undefined ? null : patch.favorite ? 1 : 0;
    const arch = patch.archived === undefined ? null : patch.archived ? 1 : 0;
    const differs = `(coalesce(?, favorite) != favorite OR coalesce(?, archived) != archived)`;
    const changed = db
      .prepare(`SELECT count(*) FROM media WHERE id ${IN_IDS} AND status = 'active' AND ${differs}`)
      .pluck()
      .get(JSON.stringify(ids), fav, arch) as number;
    // Every version carries the item's flags: the one browse shows may change.
    db.prepare(
      `UPDATE media SET favorite = coalesce(?, favorite), archived = coalesce(?, archived)
       WHERE root_id IN (SELECT root_id FROM media WHERE id ${IN_IDS} AND status = 'active') AND ${differs}`,
    ).run(fav, arch, JSON.stringify(ids), fav, arch);
    return changed;
  });

  const trash = db.transaction((ids: string[], userId: string) => {
    let deletedCount = 0;
    for (const id of ids) {
      const row = fetchRow(id);
      if (row && row.status === 'active') deletedCount += toTrash(row, userId);
    }
    return { deletedCount };
  });

  const restore = db.transaction((ids: string[]) => {
    let restoredCount = 0;
    for (const id of ids) restoredCount += restoreEntry(core, id);
    return { restoredCount };
  });

  const purge = db.transaction((ids: string[]) => {
    const entries = db.prepare(`SELECT id FROM trash WHERE id ${IN_IDS}`).pluck().all(JSON.stringify(ids)) as string[];
    const blobKeys = new Set<string>();
    for (const id of entries) for (const key of purgeEntry(core, id)) blobKeys.add(key);
    return { purged: entries.length, blobKeys: [...blobKeys] };
  });

  return {
    setFlags: async (ids, patch) => setFlags(ids, patch),
    trash: async (ids, userId) => trash(ids, userId),
    restore: async (ids) => restore(ids),
    purgeTrash: async (ids) => purge(ids),
    ...trashReads(core),
  };
}

/** The trash's reads: a page, some entries, the entries older than a time. */
function trashReads({ db, mustRow }: MediaCore): Omit<TrashReads, 'purgeTrash'> {
  const toEntry = (row: TrashRow): TrashEntry => ({
    id: row.id,
    collectionId: row.dataset_id,
    organizationId: row.organization_id,
    deletedAt: row.deleted_at,
    deletedById: row.deleted_by,
    location: JSON.parse(row.location) as TrashPlace[],
    item: toMedia(mustRow(row.id)),
    rowCount: row.row_count,
    thumbnailKey: row.thumbnail_key,
  });
  return {
    async listTrash(collectionId, page) {
      const read = db.transaction(() => {
        const total = db.prepare(`SELECT count(*) FROM trash WHERE dataset_id = ?`).pluck().get(collectionId) as number;
        const rows = db
          .prepare(
            `SELECT ${ENTRY_COLUMNS} FROM trash t WHERE t.dataset_id = ?
             ORDER BY t.deleted_at DESC, t.id DESC LIMIT ? OFFSET ?`,
          )
          .all(collectionId, page.limit, page.offset) as TrashRow[];
        return { entries: rows.map(toEntry), total };
      });
      return read();
    },
    async trashEntries(ids) {
      const rows = db.prepare(`SELECT ${ENTRY_COLUMNS} FROM trash t WHERE t.id ${IN_IDS}`).all(JSON.stringify(ids));
      return (rows as TrashRow[]).map(toEntry);
    },
    async trashBefore(before, collectionId, limit) {
      return db
        .prepare(
          `SELECT id FROM trash WHERE deleted_at < ? AND (? IS NULL OR dataset_id = ?) ORDER BY deleted_at, id LIMIT ?`,
        )
        .pluck()
        .all(before, collectionId, collectionId, limit) as string[];
    },
  };
}

/**
 * Makes the folders on the way to `parentPath` active again: a deleted one (its row alone, out of its trash
 * entry), a purged one made again with its id and its name at the time (`location`).
 */
function reviveFolders(core: MediaCore, row: MediaRow, location: TrashPlace[], at: string): void {
  const { db, fetchRow, writers } = core;
  const labels = row.parent_path.split('.');
  for (let i = 1; i < labels.length; i++) {
    const id = labels[i];
    const folder = fetchRow(id);
    if (folder?.status === 'active') continue;
    if (folder) {
      db.prepare(
        `UPDATE media SET status = 'active', deleted_at = NULL, trash_id = NULL, updated_at = ? WHERE id = ?`,
      ).run(at, id);
    } else {
      const name = location.find((place) => place.id === id)?.name || 'Restored';
      db.prepare(
        `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, status, processing_status,
           root_id, is_current, created_at, updated_at, created_by)
         VALUES (?, ?, ?, ?, ?, 'folder', ?, 'active', 'ready', ?, 1, ?, ?, ?)`,
      ).run(
        id,
        row.dataset_id,
        row.organization_id,
        labels.slice(0, i + 1).join('.'),
        labels.slice(0, i).join('.'),
        name,
        id,
        at,
        at,
        row.updated_by ?? row.created_by,
      );
    }
    writers.text.reindexMedia([id]);
    core.events.append(mediaEvent('media.created', fetchRow(id)!));
  }
}

/** One trash entry back where it was; how many media rows became active. */
export function restoreEntry(core: MediaCore, id: string): number {
  const { db, fetchRow, writers } = core;
  const entry = db.prepare(`SELECT location FROM trash WHERE id = ?`).get(id) as { location: string } | undefined;
  const root = fetchRow(id);
  if (!entry || !root) return 0;
  const at = now();
  reviveFolders(core, root, JSON.parse(entry.location) as TrashPlace[], at);
  const rows = db.prepare(`SELECT * FROM media WHERE trash_id = ? AND status = 'deleted'`).all(id) as MediaRow[];
  const ids = JSON.stringify(rows.map((r) => r.id));
  // What the delete took with the rows (their updated_at is the row's deleted_at), not what was deleted before.
  for (const table of ['frames', 'captions', 'detected_objects']) {
    db.prepare(
      `UPDATE ${table} SET status = 'active', updated_at = ?
       WHERE media_id ${IN_IDS} AND status = 'deleted'
         AND updated_at = (SELECT m.deleted_at FROM media m WHERE m.id = ${table}.media_id)`,
    ).run(at, ids);
  }
  db.prepare(
    `UPDATE media SET status = 'active', deleted_at = NULL, trash_id = NULL, updated_at = ? WHERE id ${IN_IDS}`,
  ).run(at, ids);
  const mediaIds = rows.map((r) => r.id);
  writers.text.reindexMedia(mediaIds);
  for (const r of rows) syncTags(db, writers.text, r.id, r.dataset_id, r.is_current === 1, JSON.parse(r.metadata));
  writers.vectors.upsert(restoredVectors(core, ids));
  core.addStorage(
    rows.reduce((sum, r) => sum + r.size_bytes, 0),
    root.organization_id,
  );
  db.prepare(`DELETE FROM trash WHERE id = ?`).run(id);
  core.events.append(mediaEvent('media.created', fetchRow(id)!));
  return rows.length;
}

/** The stored embeddings of the restored items' active objects, for the vector index. */
function restoredVectors({ db }: MediaCore, ids: string): VectorRow[] {
  const rows = db
    .prepare(
      `SELECT e.object_id, e.model_id, e.similarity_model, e.media_id, e.dataset_id, o.frame_id, e.vector
       FROM object_embeddings e JOIN detected_objects o ON o.id = e.object_id
       WHERE e.media_id ${IN_IDS} AND o.status = 'active'`,
    )
    .all(ids) as Array<{
    object_id: string;
    model_id: string;
    similarity_model: VectorRow['similarityModel'];
    media_id: string;
    dataset_id: string;
    frame_id: string;
    vector: Buffer;
  }>;
  return rows.map((r) => {
    const copy = new Uint8Array(r.vector);
    return {
      objectId: r.object_id,
      modelId: r.model_id,
      similarityModel: r.similarity_model,
      mediaId: r.media_id,
      collectionId: r.dataset_id,
      frameId: r.frame_id,
      vector: new Float32Array(copy.buffer, 0, copy.byteLength / 4),
    };
  });
}

/** Deletes one entry's rows for good; returns the blob keys they referenced. */
function purgeEntry({ db }: MediaCore, id: string): string[] {
  const ids = JSON.stringify(db.prepare(`SELECT id FROM media WHERE trash_id = ?`).pluck().all(id));
  const keys = db
    .prepare(
      `SELECT blob_key FROM media WHERE id ${IN_IDS} AND blob_key IS NOT NULL
       UNION SELECT json_extract(${VALID_EXIF}, '$.webVideo.key') FROM media WHERE id ${IN_IDS}
       UNION SELECT json_extract(${VALID_EXIF}, '$.livePhoto.key') FROM media WHERE id ${IN_IDS}
       UNION SELECT blob_key FROM frames WHERE media_id ${IN_IDS}
       UNION SELECT thumbnail_key FROM frames WHERE media_id ${IN_IDS}
       UNION SELECT preview_key FROM frames WHERE media_id ${IN_IDS}
       UNION SELECT blob_key FROM detected_objects WHERE media_id ${IN_IDS}`,
    )
    .pluck()
    .all(ids, ids, ids, ids, ids, ids, ids) as Array<string | null>;
  // Children first (captions and objects name their frame); the embeddings' triggers update the clusters.
  db.prepare(
    `DELETE FROM cluster_pending WHERE object_id IN (SELECT id FROM detected_objects WHERE media_id ${IN_IDS})`,
  ).run(ids);
  db.prepare(
    `DELETE FROM cluster_pins WHERE object_id IN (SELECT id FROM detected_objects WHERE media_id ${IN_IDS})`,
  ).run(ids);
  for (const table of ['object_embeddings', 'captions', 'detected_objects', 'frames', 'media_stages', 'media_tags'])
    db.prepare(`DELETE FROM ${table} WHERE media_id ${IN_IDS}`).run(ids);
  db.prepare(`DELETE FROM media WHERE id ${IN_IDS}`).run(ids);
  db.prepare(`DELETE FROM trash WHERE id = ?`).run(id);
  return keys.filter((k): k is string => typeof k === 'string' && k.length > 0);
}
