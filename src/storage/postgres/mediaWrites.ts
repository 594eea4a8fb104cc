import { lockParent } from './mediaTree.js';
import { insertFrames } from './frameSync.js';
import type { PgDb, PgRunner } from '../../platform/pgDb.js';
import { mediaEvent } from '../sqlite/eventLog.js';
import { toMedia } from '../sqlite/rows.js';
import type { MediaStore } from '../storage.js';
import type { MediaRecord, Metadata, NewMedia } from '../types.js';
import { appendEvent } from './eventAppend.js';
import type { PgEventHub } from './eventHub.js';
import {
  activeRow,
  addStorage,
  fetchRow,
  LIVE,
  lockRoot,
  MEDIA_COLUMNS,
  mustRow,
  now,
  textOrNull,
  type MediaRow,
  type MediaRowWithText,
} from './mediaRows.js';
import { dropTags, syncTags } from './tags.js';

/** A key of our own for the two-key pg_advisory_xact_lock: insertFolder's reuse, per (parent, name). */
const FOLDER_LOCK = 0x6c756d30;

/** Writes a new media row (an item or a folder). */
async function insertMediaRow(tx: PgRunner, media: NewMedia, at: string): Promise<void> {
  await tx.query(
    `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, mime_type,
       width, height, duration, size_bytes, exif, metadata, description, prompt, status, processing_status,
       root_id, is_current, created_at, updated_at, created_by, taken_at)
     VALUES ($1, $2, $3, $4::ltree, $5::ltree, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, 'active', $18,
       $19, true, $20, $20, $21, $22)`,
    [
      media.id,
      media.collectionId,
      media.organizationId,
      `${media.parentPath}.${media.id}`,
      media.parentPath,
      media.type,
      media.name,
      media.blobKey,
      media.mimeType,
      media.width,
      media.height,
      media.duration,
      media.sizeBytes,
      JSON.stringify(media.exif),
      JSON.stringify(media.metadata),
      textOrNull(media.metadata.description),
      textOrNull(media.metadata.prompt),
      media.processingStatus,
      media.rootId ?? media.id,
      at,
      media.createdById,
      media.takenAt ?? null,
    ],
  );
}

/** Writes an item's name and metadata, with its tags. */
async function writeMetadata(tx: PgRunner, row: MediaRow, metadata: Metadata, name: string, userId: string) {
  await tx.query(
    `UPDATE media SET name = $1, metadata = $2, description = $3, prompt = $4, updated_at = $5, updated_by = $6
     WHERE id = $7`,
    [
      name,
      JSON.stringify(metadata),
      textOrNull(metadata.description),
      textOrNull(metadata.prompt),
      now(),
      userId,
      row.id,
    ],
  );
  await syncTags(tx, row.id, row.dataset_id, row.status === 'active' && row.is_current === 1, metadata);
}

/** Runs `fn` in a transaction, then tells this process's streams when it appended events. */
type Eventful = <T>(fn: (tx: PgRunner) => Promise<{ result: T; appended: boolean }>) => Promise<T>;

function eventful(db: PgDb, hub: PgEventHub): Eventful {
  return async (fn) => {
    const { result, appended } = await db.tx(fn);
    if (appended) hub.appended();
    return result;
  };
}

/**
 * MediaStore.setProcessingStatus: the change and its `media.status` event in one transaction. A `ready`
 * event names the stages that wait for a model (media_stages, written just before by the analysis).
 */
function processingStatusWriter(withEvents: Eventful): MediaStore['setProcessingStatus'] {
  return (id, status, error) =>
    withEvents(async (tx) => {
      const before = await fetchRow(tx, id, true);
      if (!before || (before.processing_status === status && before.processing_error === error)) {
        return { result: undefined, appended: false };
      }
      await tx.query(`UPDATE media SET processing_status = $1, processing_error = $2 WHERE id = $3`, [
        status,
        error,
        id,
      ]);
      const after: MediaRow = { ...before, processing_status: status, processing_error: error };
      // A deleted item's last job may still settle it: its readers were told it is gone.
      if (after.status !== 'active') return { result: undefined, appended: false };
      const waiting =
        status === 'ready'
          ? await tx.many<{ stage: string; model: string | null }>(
              `SELECT stage, model FROM media_stages WHERE media_id = $1 AND state = 'waiting'
               ORDER BY stage COLLATE "C"`,
              [id],
            )
          : [];
      await appendEvent(tx, mediaEvent('media.status', after, { waiting }));
      return { result: undefined, appended: true };
    });
}

/** MediaStore.mergeExif: top-level keys set in JavaScript (the document keeps its keys' order), updatedAt kept. */
function mergeExif(
  db: PgDb,
  id: string,
  patch: Record<string, unknown>,
  takenAt?: string | null,
): Promise<MediaRecord | null> {
  return db.tx(async (tx) => {
    const row = await tx.one<{ exif: string }>(
      `SELECT exif::text AS exif FROM media WHERE id = $1 AND status = 'active' FOR UPDATE`,
      [id],
    );
    if (!row) return null;
    const exif = { ...(JSON.parse(row.exif) as Record<string, unknown>), ...patch };
    await tx.query(`UPDATE media SET exif = $1 WHERE id = $2`, [JSON.stringify(exif), id]);
    if (takenAt !== undefined) await tx.query(`UPDATE media SET taken_at = $1 WHERE id = $2`, [takenAt, id]);
    return toMedia(await mustRow(tx, id));
  });
}

/** Inserting items and folders, editing an item's metadata and processing status. */
export function mediaWrites(
  db: PgDb,
  hub: PgEventHub,
): Pick<MediaStore, 'insert' | 'insertFolder' | 'update' | 'mutateMetadata' | 'mergeExif' | 'setProcessingStatus'> {
  const withEvents = eventful(db, hub);

  return {
    insert: (resolved, frames) =>
      withEvents(async (tx) => {
        const media = { ...resolved, parentPath: await lockParent(tx, resolved.parentPath) };
        const at = now();
        if (media.rootId) {
          // A new derived version becomes the current one: the previous current stops being live.
          await lockRoot(tx, media.rootId);
          const previous = await tx.many<{ id: string }>(
            `UPDATE media SET is_current = false WHERE root_id = $1 AND is_current RETURNING id`,
            [media.rootId],
          );
          await dropTags(
            tx,
            previous.map((r) => r.id),
          );
        }
        await insertMediaRow(tx, media, at);
        // A new version keeps the item's favourite and archived flags (migration 060).
        if (media.rootId)
          await tx.query(
            `UPDATE media SET (favorite, archived) = (SELECT favorite, archived FROM media WHERE id = $1) WHERE id = $2`,
            [media.rootId, media.id],
          );
        await insertFrames(tx, media.id, frames, at, media.createdById);
        await syncTags(tx, media.id, media.collectionId, true, media.metadata);
        await addStorage(tx, media.sizeBytes, media.organizationId);
        const row = await mustRow(tx, media.id);
        await appendEvent(tx, mediaEvent('media.created', row));
        return { result: toMedia(row), appended: true };
      }),

    insertFolder: (resolved, reuse) =>
      withEvents<{ folder: MediaRecord; created: boolean }>(async (tx) => {
        const folder = { ...resolved, parentPath: await lockParent(tx, resolved.parentPath) };
        if (reuse) {
          // Two callers reusing the same (parent, name) at once: the second waits and finds the first's folder.
          await tx.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [
            FOLDER_LOCK,
            `${folder.parentPath}/${folder.name}`,
          ]);
          const existing = await tx.one<MediaRowWithText>(
            `SELECT ${MEDIA_COLUMNS} FROM media
             WHERE parent_path = $1::ltree AND type = 'folder' AND name = $2 AND ${LIVE}
             ORDER BY created_at, id LIMIT 1`,
            [folder.parentPath, folder.name],
          );
          if (existing) return { result: { folder: toMedia(existing), created: false }, appended: false };
        }
        await insertMediaRow(tx, folder, now());
        const row = await mustRow(tx, folder.id);
        await appendEvent(tx, mediaEvent('media.created', row));
        return { result: { folder: toMedia(row), created: true }, appended: true };
      }),

    update: (id, patch, userId) =>
      db.tx(async (tx) => {
        const row = await activeRow(tx, id, true);
        await writeMetadata(
          tx,
          row,
          patch.metadata ?? (JSON.parse(row.metadata) as Metadata),
          patch.name ?? row.name,
          userId,
        );
        return toMedia(await mustRow(tx, id));
      }),

    mutateMetadata: (id, userId, mutate) =>
      db.tx(async (tx) => {
        // FOR UPDATE: a concurrent mutation waits for this one and then reads its result.
        const row = await activeRow(tx, id, true);
        await writeMetadata(tx, row, mutate(JSON.parse(row.metadata) as Metadata), row.name, userId);
        return toMedia(await mustRow(tx, id));
      }),

    mergeExif: (id, patch, takenAt) => mergeExif(db, id, patch, takenAt),
    setProcessingStatus: processingStatusWriter(withEvents),
  };
}
