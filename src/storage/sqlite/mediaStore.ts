import { invalid, notFound } from '../../platform/errors.js';
import type { MediaStore } from '../storage.js';
import type { FrameDetail, MediaRecord, MediaSummary, Metadata, NewFrame, NewMedia } from '../types.js';
import { sqliteBrowse } from './browse.js';
import type { IndexWriters } from '../indexWriters.js';
import type { Db } from './database.js';
import {
  toCaption,
  toFrame,
  toMedia,
  toObject,
  type CaptionRow,
  type FrameRow,
  type MediaRow,
  type ObjectRow,
} from './rows.js';
import { columnsOf, rowReader } from './rowReader.js';
import { dropTags, syncTags } from './tagIndex.js';
import { sqliteVersions } from './versions.js';

const LIVE = `status = 'active' AND is_current = 1`;
const now = () => new Date().toISOString();
const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** `path > 'p.' AND path < 'p/'` selects every descendant of p: '/' is the character after '.'. */
export const subtreeBounds = (path: string): [string, string] => [`${path}.`, `${path}/`];

const MEDIA_COLUMNS = columnsOf<MediaRow>({
  id: 1,
  dataset_id: 1,
  organization_id: 1,
  path: 1,
  parent_path: 1,
  type: 1,
  name: 1,
  blob_key: 1,
  mime_type: 1,
  width: 1,
  height: 1,
  duration: 1,
  size_bytes: 1,
  exif: 1,
  metadata: 1,
  status: 1,
  processing_status: 1,
  processing_error: 1,
  root_id: 1,
  is_current: 1,
  created_at: 1,
  updated_at: 1,
  created_by: 1,
  updated_by: 1,
});
type SummaryRow = Pick<
  MediaRow,
  | 'id'
  | 'dataset_id'
  | 'type'
  | 'name'
  | 'blob_key'
  | 'width'
  | 'height'
  | 'duration'
  | 'status'
  | 'is_current'
  | 'created_at'
>;
const SUMMARY_COLUMNS = columnsOf<SummaryRow>({
  id: 1,
  dataset_id: 1,
  type: 1,
  name: 1,
  blob_key: 1,
  width: 1,
  height: 1,
  duration: 1,
  status: 1,
  is_current: 1,
  created_at: 1,
});
const toSummary = (r: SummaryRow): MediaSummary => ({
  id: r.id,
  collectionId: r.dataset_id,
  type: r.type,
  name: r.name,
  blobKey: r.blob_key,
  width: r.width,
  height: r.height,
  duration: r.duration,
  status: r.status,
  isCurrent: r.is_current === 1,
  createdAt: r.created_at,
});
const FRAME_COLUMNS = columnsOf<FrameRow>({
  id: 1,
  media_id: 1,
  timestamp: 1,
  blob_key: 1,
  width: 1,
  height: 1,
  status: 1,
  metadata: 1,
  created_at: 1,
  updated_at: 1,
  created_by: 1,
});
const CAPTION_COLUMNS = columnsOf<CaptionRow>({
  id: 1,
  frame_id: 1,
  text: 1,
  model: 1,
  status: 1,
  metadata: 1,
  created_at: 1,
  updated_at: 1,
  created_by: 1,
});
const OBJECT_COLUMNS = columnsOf<ObjectRow>({
  id: 1,
  frame_id: 1,
  media_id: 1,
  type: 1,
  label: 1,
  blob_key: 1,
  polygon: 1,
  confidence: 1,
  model: 1,
  status: 1,
  created_at: 1,
});

/** A media row as `SELECT *` reads it: with the description column (searchable text) too. */
type MediaRowWithText = MediaRow & { description: string | null };

export function sqliteMediaStore(db: Db, writers: IndexWriters): MediaStore {
  const { vectors, text } = writers;
  const getRow = db.prepare(`SELECT * FROM media WHERE id = ?`);
  const fetchRow = (id: string): MediaRow | undefined => getRow.get(id) as MediaRow | undefined;
  const mustRow = (id: string): MediaRow => {
    const row = fetchRow(id);
    if (!row) throw notFound('media not found');
    return row;
  };

  const insertMedia = db.prepare(
    `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, mime_type,
       width, height, duration, size_bytes, exif, metadata, description, prompt, status, processing_status,
       root_id, is_current, created_at, updated_at, created_by)
     VALUES (@id, @collectionId, @organizationId, @path, @parentPath, @type, @name, @blobKey, @mimeType,
       @width, @height, @duration, @sizeBytes, @exif, @metadata, @description, @prompt, 'active', @processingStatus,
       @rootId, 1, @at, @at, @createdById)`,
  );
  const insertFrame = db.prepare(
    `INSERT INTO frames (id, media_id, timestamp, seconds, blob_key, width, height, metadata, created_at, updated_at, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const addStorage = db.prepare(`UPDATE organizations SET storage_bytes = max(0, storage_bytes + ?) WHERE id = ?`);

  const writeMedia = (m: NewMedia, at: string) => {
    const rootId = m.rootId ?? m.id;
    insertMedia.run({
      ...m,
      path: `${m.parentPath}.${m.id}`,
      exif: JSON.stringify(m.exif),
      metadata: JSON.stringify(m.metadata),
      description: textOrNull(m.metadata.description),
      prompt: textOrNull(m.metadata.prompt),
      rootId,
      at,
    });
    text.reindexItemText(m.id);
  };

  const insert = db.transaction((m: NewMedia, frames: NewFrame[]): MediaRecord => {
    const at = now();
    if (m.rootId) {
      // A new derived version becomes the current one: the previous current stops being live.
      const previous = db
        .prepare(`SELECT id FROM media WHERE root_id = ? AND ${LIVE}`)
        .pluck()
        .all(m.rootId) as string[];
      db.prepare(`UPDATE media SET is_current = 0 WHERE root_id = ?`).run(m.rootId);
      text.reindexMedia(previous);
      dropTags(db, text, previous);
    }
    writeMedia(m, at);
    for (const f of frames) {
      insertFrame.run(
        f.id,
        m.id,
        f.timestamp,
        Number(f.timestamp) || 0,
        f.blobKey,
        f.width,
        f.height,
        JSON.stringify(f.metadata ?? {}),
        at,
        at,
        m.createdById,
      );
    }
    syncTags(db, text, m.id, m.collectionId, true, m.metadata);
    addStorage.run(m.sizeBytes, m.organizationId);
    return toMedia(mustRow(m.id));
  });

  const insertFolder = db.transaction((f: NewMedia, reuse: boolean) => {
    if (reuse) {
      const existing = db
        .prepare(
          `SELECT * FROM media WHERE parent_path = ? AND type = 'folder' AND name = ? AND ${LIVE} ORDER BY created_at, id LIMIT 1`,
        )
        .get(f.parentPath, f.name) as MediaRow | undefined;
      if (existing) return { folder: toMedia(existing), created: false };
    }
    writeMedia(f, now());
    return { folder: toMedia(mustRow(f.id)), created: true };
  });

  const writeMetadata = (row: MediaRow, metadata: Metadata, name: string, userId: string) => {
    const description = textOrNull(metadata.description);
    db.prepare(
      `UPDATE media SET name = ?, metadata = ?, description = ?, prompt = ?, updated_at = ?, updated_by = ? WHERE id = ?`,
    ).run(name, JSON.stringify(metadata), description, textOrNull(metadata.prompt), now(), userId, row.id);
    // The item's own row in the text index holds its name and description: re-indexed when either changed.
    if (row.name !== name || (row as MediaRowWithText).description !== description) text.reindexItemText(row.id);
    syncTags(db, text, row.id, row.dataset_id, row.status === 'active' && row.is_current === 1, metadata);
  };

  const activeRow = (id: string): MediaRow => {
    const row = mustRow(id);
    if (row.status !== 'active') throw notFound('media not found');
    return row;
  };

  const update = db.transaction((id: string, patch: { name?: string; metadata?: Metadata }, userId: string) => {
    const row = activeRow(id);
    writeMetadata(row, patch.metadata ?? JSON.parse(row.metadata), patch.name ?? row.name, userId);
    return toMedia(mustRow(id));
  });

  const mutateMetadata = db.transaction((id: string, userId: string, mutate: (m: Metadata) => Metadata) => {
    const row = activeRow(id);
    writeMetadata(row, mutate(JSON.parse(row.metadata) as Metadata), row.name, userId);
    return toMedia(mustRow(id));
  });

  /** Marks these rows deleted with everything hanging off them; returns how many changed. */
  const deleteRows = (
    rows: Array<{ id: string; size_bytes: number }>,
    organizationId: string,
    userId: string,
  ): number => {
    if (rows.length === 0) return 0;
    const ids = JSON.stringify(rows.map((r) => r.id));
    const at = now();
    db.prepare(
      `UPDATE media SET status = 'deleted', deleted_at = ?, updated_at = ?, updated_by = ? WHERE id IN (SELECT value FROM json_each(?))`,
    ).run(at, at, userId, ids);
    // The items stop being live: every text index row of theirs goes, their frames', captions' and objects'
    // included, so the status changes below have nothing left to drop.
    text.reindexMedia(rows.map((r) => r.id));
    for (const table of ['frames', 'captions', 'detected_objects']) {
      db.prepare(
        `UPDATE ${table} SET status = 'deleted', updated_at = ? WHERE media_id IN (SELECT value FROM json_each(?))`,
      ).run(at, ids);
    }
    dropTags(
      db,
      text,
      rows.map((r) => r.id),
    );
    vectors.removeMedia(rows.map((r) => r.id));
    addStorage.run(-rows.reduce((s, r) => s + r.size_bytes, 0), organizationId);
    return rows.length;
  };

  const softDelete = db.transaction((id: string, userId: string) => {
    const row = activeRow(id);
    let rows: Array<{ id: string; size_bytes: number }>;
    if (row.type === 'folder') {
      const [lo, hi] = subtreeBounds(row.path);
      rows = db
        .prepare(`SELECT id, size_bytes FROM media WHERE status = 'active' AND (id = ? OR (path > ? AND path < ?))`)
        .all(id, lo, hi) as typeof rows;
    } else {
      rows = db
        .prepare(`SELECT id, size_bytes FROM media WHERE status = 'active' AND root_id = ?`)
        .all(row.root_id) as typeof rows;
    }
    return { deletedCount: deleteRows(rows, row.organization_id, userId) };
  });

  // Paths are not searchable and a move stays in its collection: the indexes have nothing to hear of it.
  const move = db.transaction((id: string, destinationPath: string, userId: string) => {
    const row = activeRow(id);
    const at = now();
    if (row.type === 'folder') {
      if (destinationPath === row.path || destinationPath.startsWith(`${row.path}.`)) {
        throw invalid('a folder cannot be moved into itself or one of its own subfolders');
      }
      const newPath = `${destinationPath}.${row.id}`;
      const [lo, hi] = subtreeBounds(row.path);
      // One statement rewrites the prefix of the whole subtree, using the path index for the range.
      db.prepare(
        `UPDATE media SET
           path = @newPath || substr(path, @oldLen + 1),
           parent_path = CASE WHEN id = @id THEN @dest ELSE @newPath || substr(parent_path, @oldLen + 1) END
         WHERE id = @id OR (path > @lo AND path < @hi)`,
      ).run({ newPath, oldLen: row.path.length, id, dest: destinationPath, lo, hi });
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
  });

  // The batch reads behind listings and search: prepared once, rows built by rowReader (see there for why).
  const IN_IDS = `IN (SELECT value FROM json_each(?))`;
  const mediaByIds = rowReader<MediaRow>(db, MEDIA_COLUMNS, `FROM media WHERE id ${IN_IDS}`);
  const summariesByIds = rowReader<SummaryRow>(db, SUMMARY_COLUMNS, `FROM media WHERE id ${IN_IDS}`);
  const framesByMedia = rowReader<FrameRow>(
    db,
    FRAME_COLUMNS,
    `FROM frames WHERE media_id ${IN_IDS} AND status = 'active' ORDER BY media_id, seconds, id`,
  );
  const captionsByMedia = rowReader<CaptionRow>(
    db,
    CAPTION_COLUMNS,
    `FROM captions WHERE media_id ${IN_IDS} AND status = 'active' ORDER BY created_at, id`,
  );
  const objectsByMedia = rowReader<ObjectRow>(
    db,
    OBJECT_COLUMNS,
    `FROM detected_objects WHERE media_id ${IN_IDS} AND status = 'active' ORDER BY created_at, id`,
  );

  const framesById = rowReader<FrameRow>(db, FRAME_COLUMNS, `FROM frames WHERE id ${IN_IDS} AND status = 'active'`);
  const captionsByFrames = rowReader<CaptionRow>(
    db,
    CAPTION_COLUMNS,
    `FROM captions WHERE frame_id ${IN_IDS} AND status = 'active' ORDER BY created_at, id`,
  );
  const objectsByFrames = rowReader<ObjectRow>(
    db,
    OBJECT_COLUMNS,
    `FROM detected_objects WHERE frame_id ${IN_IDS} AND status = 'active' ORDER BY created_at, id`,
  );
  // The first active frame of each item, through frames_by_media (media_id, seconds).
  const firstFrames = db.prepare(
    `SELECT j.value AS mediaId, (SELECT id FROM frames WHERE media_id = j.value AND status = 'active' ORDER BY seconds, id LIMIT 1) AS frameId
     FROM json_each(?) j`,
  );

  /** Frame rows as details, by frame id, with the captions and objects given (in their order). */
  const details = (
    frames: FrameRow[],
    captions: () => CaptionRow[],
    objects: () => ObjectRow[],
  ): Map<string, FrameDetail> => {
    const byFrame = new Map<string, FrameDetail>();
    for (const r of frames) byFrame.set(r.id, { ...toFrame(r), captions: [], objects: [] });
    if (frames.length === 0) return byFrame;
    for (const c of captions()) byFrame.get(c.frame_id)?.captions.push(toCaption(c));
    for (const o of objects()) byFrame.get(o.frame_id)?.objects.push(toObject(o));
    return byFrame;
  };

  const framesOf = (mediaIds: string[]): Map<string, FrameDetail[]> => {
    const out = new Map<string, FrameDetail[]>();
    if (mediaIds.length === 0) return out;
    const ids = JSON.stringify(mediaIds);
    for (const f of details(
      framesByMedia(ids),
      () => captionsByMedia(ids),
      () => objectsByMedia(ids),
    ).values()) {
      const list = out.get(f.mediaId);
      if (list) list.push(f);
      else out.set(f.mediaId, [f]);
    }
    return out;
  };

  const pickFrames = (refs: Array<{ mediaId: string; frameId: string | null }>): Array<FrameDetail | null> => {
    const firstOf = new Map<string, string | null>();
    const wanted = [...new Set(refs.filter((r) => r.frameId === null).map((r) => r.mediaId))];
    if (wanted.length) {
      for (const r of firstFrames.all(JSON.stringify(wanted)) as Array<{ mediaId: string; frameId: string | null }>)
        firstOf.set(r.mediaId, r.frameId);
    }
    const frameIdOf = (r: { mediaId: string; frameId: string | null }) => r.frameId ?? firstOf.get(r.mediaId) ?? null;
    const ids = JSON.stringify([...new Set(refs.map(frameIdOf).filter((id): id is string => id !== null))]);
    const byFrame = details(
      framesById(ids),
      () => captionsByFrames(ids),
      () => objectsByFrames(ids),
    );
    return refs.map((r) => {
      const f = byFrame.get(frameIdOf(r) ?? '');
      return f && f.mediaId === r.mediaId ? f : null;
    });
  };

  return {
    insert: async (m, frames) => insert(m, frames),
    insertFolder: async (f, reuse) => insertFolder(f, reuse),
    get: async (id) => {
      const row = fetchRow(id);
      return row ? toMedia(row) : null;
    },
    frames: async (mediaIds) => framesOf(mediaIds),
    pickFrames: async (refs) => (refs.length ? pickFrames(refs) : []),
    getMany: async (ids) => (ids.length === 0 ? [] : mediaByIds(JSON.stringify(ids)).map(toMedia)),
    summaries: async (ids) => (ids.length === 0 ? [] : summariesByIds(JSON.stringify(ids)).map(toSummary)),
    update: async (id, patch, userId) => update(id, patch, userId),
    mutateMetadata: async (id, userId, mutate) => mutateMetadata(id, userId, mutate),
    softDelete: async (id, userId) => softDelete(id, userId),
    move: async (id, destinationPath, userId) => move(id, destinationPath, userId),
    ...sqliteBrowse(db),
    ...sqliteVersions(db, { deleteRows, mustRow, text }),
    setProcessingStatus: async (id, status, error) => {
      db.prepare(`UPDATE media SET processing_status = ?, processing_error = ? WHERE id = ?`).run(status, error, id);
    },
    unfinishedIds: async (limit, afterId = '') =>
      db
        .prepare(
          `SELECT id FROM media WHERE status = 'active' AND processing_status IN ('pending', 'processing') AND type != 'folder' AND id > ?
           ORDER BY id LIMIT ?`,
        )
        .pluck()
        .all(afterId, limit) as string[],
    referencedBlobKeys: async (keys) => {
      const json = JSON.stringify(keys);
      const found = db
        .prepare(
          `SELECT blob_key FROM media WHERE blob_key IN (SELECT value FROM json_each(?))
           UNION SELECT blob_key FROM frames WHERE blob_key IN (SELECT value FROM json_each(?))
           UNION SELECT blob_key FROM detected_objects WHERE blob_key IN (SELECT value FROM json_each(?))`,
        )
        .pluck()
        .all(json, json, json) as string[];
      return new Set(found);
    },
    findByBlobKey: async (organizationId, blobKey) =>
      (
        db
          .prepare(
            `SELECT * FROM media WHERE blob_key = ? AND organization_id = ? AND status = 'active' AND type != 'folder'
             ORDER BY is_current DESC, created_at DESC, id DESC`,
          )
          .all(blobKey, organizationId) as MediaRow[]
      ).map(toMedia),
  };
}
