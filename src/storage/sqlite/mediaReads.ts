import type { MediaStore } from '../storage.js';
import type { FrameDetail, MediaSummary } from '../types.js';
import type { Db } from './database.js';
import type { MediaCore } from './mediaCore.js';
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
import { referencedBlobKeys } from './blobReferences.js';
import { columnsOf, rowReader } from './rowReader.js';

/** Every column of MediaRow (the batch reads and the browse page read them). */
export const MEDIA_COLUMNS = columnsOf<MediaRow>({
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
  taken_at: 1,
  favorite: 1,
  archived: 1,
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
  | 'favorite'
  | 'archived'
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
  favorite: 1,
  archived: 1,
});
const toSummary = (row: SummaryRow): MediaSummary => ({
  id: row.id,
  collectionId: row.dataset_id,
  type: row.type,
  name: row.name,
  blobKey: row.blob_key,
  width: row.width,
  height: row.height,
  duration: row.duration,
  status: row.status,
  isCurrent: row.is_current === 1,
  createdAt: row.created_at,
  favorite: Boolean(row.favorite),
  archived: Boolean(row.archived),
});
const FRAME_COLUMNS = columnsOf<FrameRow>({
  id: 1,
  media_id: 1,
  timestamp: 1,
  blob_key: 1,
  width: 1,
  height: 1,
  thumbnail_key: 1,
  preview_key: 1,
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

/** Matches the ids of the one parameter, a JSON array. */
const IN_IDS = `IN (SELECT value FROM json_each(?))`;

type Reader<Row> = (ids: string) => Row[];

/** The frames of a batch, and readers of the active captions and objects on them. */
interface FrameReaders {
  frames: Reader<FrameRow>;
  captions: Reader<CaptionRow>;
  objects: Reader<ObjectRow>;
}

/** The captions and objects of the ids in a JSON array, by `column` (media_id: of items; frame_id: of frames). */
const annotationReaders = (db: Db, column: 'media_id' | 'frame_id'): Omit<FrameReaders, 'frames'> => ({
  captions: rowReader<CaptionRow>(
    db,
    CAPTION_COLUMNS,
    `FROM captions WHERE ${column} ${IN_IDS} AND status = 'active' ORDER BY created_at, id`,
  ),
  objects: rowReader<ObjectRow>(
    db,
    OBJECT_COLUMNS,
    `FROM detected_objects WHERE ${column} ${IN_IDS} AND status = 'active' ORDER BY created_at, id`,
  ),
});

/**
 * Frame rows as details, by frame id, with their captions and objects (in their
 * order); the captions and objects are read only when there are frames.
 */
function details(readers: FrameReaders, ids: string): Map<string, FrameDetail> {
  const frames = readers.frames(ids);
  const byFrame = new Map<string, FrameDetail>();
  for (const row of frames) byFrame.set(row.id, { ...toFrame(row), captions: [], objects: [] });
  if (frames.length === 0) return byFrame;
  for (const caption of readers.captions(ids)) byFrame.get(caption.frame_id)?.captions.push(toCaption(caption));
  for (const object of readers.objects(ids)) byFrame.get(object.frame_id)?.objects.push(toObject(object));
  return byFrame;
}

type FrameRef = { mediaId: string; frameId: string | null };

/** The frames (with captions and objects) of items, and picked frames, each batch in a few statements. */
function frameDetails(db: Db): Pick<MediaStore, 'frames' | 'pickFrames'> {
  const ofMedia: FrameReaders = {
    frames: rowReader<FrameRow>(
      db,
      FRAME_COLUMNS,
      `FROM frames WHERE media_id ${IN_IDS} AND status = 'active' ORDER BY media_id, seconds, id`,
    ),
    ...annotationReaders(db, 'media_id'),
  };
  const byId: FrameReaders = {
    frames: rowReader<FrameRow>(db, FRAME_COLUMNS, `FROM frames WHERE id ${IN_IDS} AND status = 'active'`),
    ...annotationReaders(db, 'frame_id'),
  };
  // The first active frame of each item, through frames_by_media (media_id, seconds).
  const firstFrames = db.prepare(
    `SELECT j.value AS mediaId,
       (SELECT id FROM frames WHERE media_id = j.value AND status = 'active' ORDER BY seconds, id LIMIT 1) AS frameId
     FROM json_each(?) j`,
  );

  const framesOf = (mediaIds: string[]): Map<string, FrameDetail[]> => {
    const out = new Map<string, FrameDetail[]>();
    if (mediaIds.length === 0) return out;
    for (const frame of details(ofMedia, JSON.stringify(mediaIds)).values()) {
      const list = out.get(frame.mediaId);
      if (list) list.push(frame);
      else out.set(frame.mediaId, [frame]);
    }
    return out;
  };

  const pickFrames = (refs: FrameRef[]): Array<FrameDetail | null> => {
    const firstOf = new Map<string, string | null>();
    const wanted = [...new Set(refs.filter((ref) => ref.frameId === null).map((ref) => ref.mediaId))];
    if (wanted.length) {
      for (const first of firstFrames.all(JSON.stringify(wanted)) as FrameRef[])
        firstOf.set(first.mediaId, first.frameId);
    }
    const frameIdOf = (ref: FrameRef) => ref.frameId ?? firstOf.get(ref.mediaId) ?? null;
    const ids = JSON.stringify([...new Set(refs.map(frameIdOf).filter((id): id is string => id !== null))]);
    const byFrame = details(byId, ids);
    return refs.map((ref) => {
      const frame = byFrame.get(frameIdOf(ref) ?? '');
      return frame && frame.mediaId === ref.mediaId ? frame : null;
    });
  };

  return {
    frames: async (mediaIds) => framesOf(mediaIds),
    pickFrames: async (refs) => (refs.length ? pickFrames(refs) : []),
  };
}

/**
 * The reads behind item pages, listings and search. The batch reads are
 * prepared once, their rows built by rowReader (see there for why).
 */
export function mediaReads({
  db,
  fetchRow,
}: MediaCore): Pick<
  MediaStore,
  | 'get'
  | 'frames'
  | 'pickFrames'
  | 'getMany'
  | 'summaries'
  | 'unfinishedIds'
  | 'referencedBlobKeys'
  | 'pendingItemJobs'
  | 'findByBlobKey'
> {
  const mediaByIds = rowReader<MediaRow>(db, MEDIA_COLUMNS, `FROM media WHERE id ${IN_IDS}`);
  const summariesByIds = rowReader<SummaryRow>(db, SUMMARY_COLUMNS, `FROM media WHERE id ${IN_IDS}`);
  return {
    get: async (id) => {
      const row = fetchRow(id);
      return row ? toMedia(row) : null;
    },
    ...frameDetails(db),
    getMany: async (ids) => (ids.length === 0 ? [] : mediaByIds(JSON.stringify(ids)).map(toMedia)),
    summaries: async (ids) => (ids.length === 0 ? [] : summariesByIds(JSON.stringify(ids)).map(toSummary)),
    unfinishedIds: async (limit, afterId = '') =>
      db
        .prepare(
          `SELECT id FROM media WHERE status = 'active' AND processing_status IN ('pending', 'processing')
             AND type != 'folder' AND id > ?
           ORDER BY id LIMIT ?`,
        )
        .pluck()
        .all(afterId, limit) as string[],
    referencedBlobKeys: async (keys) => referencedBlobKeys(db, keys),
    pendingItemJobs: async (type, organizationId) =>
      db
        .prepare(
          // Through jobs_dedupe (type, key of the unfinished jobs), then the item by its id.
          `SELECT count(*) FROM jobs j JOIN media m ON m.id = j.dedupe_key
           WHERE j.type = ? AND j.status IN ('queued', 'running') AND m.organization_id = ?`,
        )
        .pluck()
        .get(type, organizationId) as number,
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
