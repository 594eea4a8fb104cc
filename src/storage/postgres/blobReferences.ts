import type { PgRunner } from '../../platform/pgDb.js';

/**
 * MediaStore.referencedBlobKeys: which of these keys a row still names (any status), for the orphan sweep.
 * Columns first (an item's file, a frame's file and renditions, an object's crop), each through its index;
 * then, for the MP4 and MOV keys no column names, the files only `exif` names: a video's web copy
 * (`exif.webVideo.key`) and a Live Photo's movie kept on its still (`exif.livePhoto.key`), through the
 * expression indexes of migration 031.
 */
export async function referencedBlobKeys(q: PgRunner, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await q.many<{ k: string }>(
    `SELECT blob_key AS k FROM media WHERE blob_key = ANY($1::text[])
     UNION SELECT blob_key FROM frames WHERE blob_key = ANY($1::text[])
     UNION SELECT thumbnail_key FROM frames WHERE thumbnail_key = ANY($1::text[])
     UNION SELECT preview_key FROM frames WHERE preview_key = ANY($1::text[])
     UNION SELECT blob_key FROM detected_objects WHERE blob_key = ANY($1::text[])`,
    [keys],
  );
  const referenced = new Set(rows.map((r) => r.k));
  const movies = keys.filter((k) => /\.(mp4|mov)$/.test(k) && !referenced.has(k));
  if (movies.length === 0) return referenced;
  const more = await q.many<{ k: string }>(
    `SELECT exif -> 'webVideo' ->> 'key' AS k FROM media
     WHERE type = 'video' AND (exif -> 'webVideo' ->> 'key') = ANY($1::text[])
     UNION SELECT exif -> 'livePhoto' ->> 'key' FROM media
     WHERE type = 'image' AND (exif -> 'livePhoto' ->> 'key') = ANY($1::text[])`,
    [movies],
  );
  for (const row of more) referenced.add(row.k);
  return referenced;
}
