import type { Db } from './database.js';

const IN_IDS = `IN (SELECT value FROM json_each(?))`;
/** The exif document, or NULL where it is not valid JSON (json_extract would fail the whole query on it). */
const VALID_EXIF = `CASE WHEN json_valid(exif) THEN exif END`;

/**
 * MediaStore.referencedBlobKeys: which of these keys a row still names (any status), for the orphan sweep.
 * Columns first (an item's file, a frame's file and renditions, an object's crop); then, for the MP4 and MOV
 * keys no column names, the files only `exif` names: a video's web copy (`exif.webVideo.key`) and a Live
 * Photo's movie kept on its still (`exif.livePhoto.key`).
 */
export function referencedBlobKeys(db: Db, keys: string[]): Set<string> {
  const json = JSON.stringify(keys);
  const found = db
    .prepare(
      `SELECT blob_key FROM media WHERE blob_key ${IN_IDS}
       UNION SELECT blob_key FROM frames WHERE blob_key ${IN_IDS}
       UNION SELECT thumbnail_key FROM frames WHERE thumbnail_key ${IN_IDS}
       UNION SELECT preview_key FROM frames WHERE preview_key ${IN_IDS}
       UNION SELECT blob_key FROM detected_objects WHERE blob_key ${IN_IDS}`,
    )
    .pluck()
    .all(json, json, json, json, json) as string[];
  const referenced = new Set(found);
  const movies = keys.filter((k) => /\.(mp4|mov)$/.test(k) && !referenced.has(k));
  if (movies.length === 0) return referenced;
  const more = db
    .prepare(
      `SELECT json_extract(${VALID_EXIF}, '$.webVideo.key') FROM media
       WHERE type = 'video' AND json_extract(${VALID_EXIF}, '$.webVideo.key') ${IN_IDS}
       UNION SELECT json_extract(${VALID_EXIF}, '$.livePhoto.key') FROM media
       WHERE type = 'image' AND json_extract(${VALID_EXIF}, '$.livePhoto.key') ${IN_IDS}`,
    )
    .pluck()
    .all(JSON.stringify(movies), JSON.stringify(movies)) as string[];
  for (const k of more) referenced.add(k);
  return referenced;
}
