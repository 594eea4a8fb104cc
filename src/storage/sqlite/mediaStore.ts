/**
 * The media store on SQLite, in parts that share one MediaCore (mediaCore.ts):
 * the writes of single items here, deletes and moves of subtrees (mediaTree.ts),
 * the batch reads (mediaReads.ts), listings (browse.ts) and versions (versions.ts).
 */
import { currentParentPath, destinationFolderId } from '../moveDestination.js';
import type { MediaStore } from '../storage.js';
import type { MediaRecord, Metadata, NewFrame, NewMedia } from '../types.js';
import { sqliteBrowse } from './browse.js';
import { sqliteBlobReferences } from './blobReferencePages.js';
import type { EventWriter } from '../eventWriter.js';
import type { IndexWriters } from '../indexWriters.js';
import type { Db } from './database.js';
import { mediaEvent } from './eventLog.js';
import { frameInserter } from './frameInsert.js';
import { sqliteFolderTree } from './folderTree.js';
import { LIVE, mediaCore, now, type MediaCore, type MediaRowWithText } from './mediaCore.js';
import { mediaReads } from './mediaReads.js';
import { mediaContent } from './mediaContent.js';
import { mediaTree, rowDeleter } from './mediaTree.js';
import { toMedia, type MediaRow } from './rows.js';
import { dropTags, syncTags } from './tagIndex.js';
import { sqliteVersions } from './versions.js';
import { sqliteTrash } from './trashStore.js';
import type { PlannerTuning } from './browsePlan.js';

const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function sqliteMediaStore(
  db: Db,
  writers: IndexWriters,
  events: EventWriter,
  browse: PlannerTuning = {},
): MediaStore {
  const core = mediaCore(db, writers, events);
  const deleteRows = rowDeleter(core);
  return {
    ...mediaWrites(core),
    ...mediaTree(core, deleteRows),
    ...mediaReads(core),
    ...sqliteBlobReferences(db),
    ...mediaContent(db),
    ...sqliteBrowse(db, browse),
    ...sqliteFolderTree(db),
    ...sqliteVersions(db, { deleteRows, mustRow: core.mustRow, text: writers.text, events }),
    ...sqliteTrash(core, deleteRows),
  };
}

/** Writes a new media row (an item or a folder) and its own row in the text index. */
function mediaInserter({ db, writers }: MediaCore): (media: NewMedia, at: string) => void {
  const insertMedia = db.prepare(
    `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, mime_type,
       width, height, duration, size_bytes, exif, metadata, description, prompt, status, processing_status,
       root_id, is_current, created_at, updated_at, created_by, taken_at)
     VALUES (@id, @collectionId, @organizationId, @path, @parentPath, @type, @name, @blobKey, @mimeType,
       @width, @height, @duration, @sizeBytes, @exif, @metadata, @description, @prompt, 'active', @processingStatus,
       @rootId, 1, @at, @at, @createdById, @takenAt)`,
  );
  return (media, at) => {
    const rootId = media.rootId ?? media.id;
    insertMedia.run({
      ...media,
      path: `${media.parentPath}.${media.id}`,
      exif: JSON.stringify(media.exif),
      metadata: JSON.stringify(media.metadata),
      description: textOrNull(media.metadata.description),
      prompt: textOrNull(media.metadata.prompt),
      rootId,
      takenAt: media.takenAt ?? null,
      at,
    });
    writers.text.reindexItemText(media.id);
  };
}

/** Writes an item's name and metadata, with its text index row and tags. */
function writeMetadata({ db, writers }: MediaCore, row: MediaRow, metadata: Metadata, name: string, userId: string) {
  const { text } = writers;
  const description = textOrNull(metadata.description);
  db.prepare(
    `UPDATE media SET name = ?, metadata = ?, description = ?, prompt = ?, updated_at = ?, updated_by = ? WHERE id = ?`,
  ).run(name, JSON.stringify(metadata), description, textOrNull(metadata.prompt), now(), userId, row.id);
  // The item's own row in the text index holds its name and description: re-indexed when either changed.
  if (row.name !== name || (row as MediaRowWithText).description !== description) text.reindexItemText(row.id);
  syncTags(db, text, row.id, row.dataset_id, row.status === 'active' && row.is_current === 1, metadata);
}

/** Inserting items and folders, editing an item's metadata and processing status. */
function mediaWrites(
  core: MediaCore,
): Pick<MediaStore, 'insert' | 'insertFolder' | 'update' | 'mutateMetadata' | 'mergeExif' | 'setProcessingStatus'> {
  const { db, mustRow, activeRow } = core;
  const { text } = core.writers;
  const writeMedia = mediaInserter(core);
  const insertFrame = frameInserter(db);

  // The parent folder as it is now, inside the transaction (moveDestination.ts).
  const underParent = (media: NewMedia): NewMedia => {
    const folderId = destinationFolderId(media.parentPath);
    return { ...media, parentPath: currentParentPath(media.parentPath, folderId ? core.fetchRow(folderId) : null) };
  };

  const insert = db.transaction((resolved: NewMedia, frames: NewFrame[]): MediaRecord => {
    const media = underParent(resolved);
    const at = now();
    if (media.rootId) {
      // A new derived version becomes the current one: the previous current stops being live.
      const previous = db
        .prepare(`SELECT id FROM media WHERE root_id = ? AND ${LIVE}`)
        .pluck()
        .all(media.rootId) as string[];
      db.prepare(`UPDATE media SET is_current = 0 WHERE root_id = ?`).run(media.rootId);
      text.reindexMedia(previous);
      dropTags(db, text, previous);
    }
    writeMedia(media, at);
    // A new version keeps the item's favourite and archived flags (migration 027).
    if (media.rootId)
      db.prepare(
        `UPDATE media SET (favorite, archived) = (SELECT favorite, archived FROM media WHERE id = ?) WHERE id = ?`,
      ).run(media.rootId, media.id);
    for (const frame of frames) insertFrame(media.id, frame, at, media.createdById);
    syncTags(db, text, media.id, media.collectionId, true, media.metadata);
    core.addStorage(media.sizeBytes, media.organizationId);
    const row = mustRow(media.id);
    core.events.append(mediaEvent('media.created', row));
    return toMedia(row);
  });

  const insertFolder = db.transaction((resolved: NewMedia, reuse: boolean) => {
    const folder = underParent(resolved);
    if (reuse) {
      const existing = db
        .prepare(
          `SELECT * FROM media WHERE parent_path = ? AND type = 'folder' AND name = ? AND ${LIVE}
           ORDER BY created_at, id LIMIT 1`,
        )
        .get(folder.parentPath, folder.name) as MediaRow | undefined;
      if (existing) return { folder: toMedia(existing), created: false };
    }
    writeMedia(folder, now());
    const row = mustRow(folder.id);
    core.events.append(mediaEvent('media.created', row));
    return { folder: toMedia(row), created: true };
  });

  const update = db.transaction((id: string, patch: { name?: string; metadata?: Metadata }, userId: string) => {
    const row = activeRow(id);
    writeMetadata(core, row, patch.metadata ?? JSON.parse(row.metadata), patch.name ?? row.name, userId);
    return toMedia(mustRow(id));
  });

  const mutateMetadata = db.transaction((id: string, userId: string, mutate: (m: Metadata) => Metadata) => {
    const row = activeRow(id);
    writeMetadata(core, row, mutate(JSON.parse(row.metadata) as Metadata), row.name, userId);
    return toMedia(mustRow(id));
  });

  const mergeExif = db.transaction((id: string, patch: Record<string, unknown>, takenAt?: string | null) => {
    const row = db.prepare(`SELECT exif FROM media WHERE id = ? AND status = 'active'`).get(id) as
      { exif: string } | undefined;
    if (!row) return null;
    const exif = { ...(JSON.parse(row.exif) as Record<string, unknown>), ...patch };
    db.prepare(`UPDATE media SET exif = ? WHERE id = ?`).run(JSON.stringify(exif), id);
    if (takenAt !== undefined) db.prepare(`UPDATE media SET taken_at = ? WHERE id = ?`).run(takenAt, id);
    return toMedia(mustRow(id));
  });

  return {
    insert: async (media, frames) => insert(media, frames),
    mergeExif: async (id, patch, takenAt) => mergeExif(id, patch, takenAt),
    insertFolder: async (folder, reuse) => insertFolder(folder, reuse),
    update: async (id, patch, userId) => update(id, patch, userId),
    mutateMetadata: async (id, userId, mutate) => mutateMetadata(id, userId, mutate),
    setProcessingStatus: processingStatusWriter(core),
  };
}

/**
 * MediaStore.setProcessingStatus: the change and its `media.status` event in one transaction. A `ready`
 * event names the stages that wait for a model (media_stages, written just before by the analysis).
 */
function processingStatusWriter({ db, fetchRow, events }: MediaCore): MediaStore['setProcessingStatus'] {
  const set = db.prepare(`UPDATE media SET processing_status = ?, processing_error = ? WHERE id = ?`);
  const waiting = db.prepare(
    `SELECT stage, model FROM media_stages WHERE media_id = ? AND state = 'waiting' ORDER BY stage`,
  );
  const write = db.transaction((id: string, status: MediaRow['processing_status'], error: string | null) => {
    const before = fetchRow(id);
    if (!before || (before.processing_status === status && before.processing_error === error)) return;
    set.run(status, error, id);
    const after: MediaRow = { ...before, processing_status: status, processing_error: error };
    // A deleted item's last job may still settle it: its readers were told it is gone.
    if (after.status === 'active')
      events.append(mediaEvent('media.status', after, { waiting: status === 'ready' ? waiting.all(id) : [] }));
  });
  return async (id, status, error) => write(id, status, error);
}
