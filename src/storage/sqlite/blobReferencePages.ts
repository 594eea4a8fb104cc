import type { MediaStore } from '../storage.js';
import type { BlobReference } from '../types.js';
import type { Db } from './database.js';

/**
 * Every blob a page of items references (any status, as the orphan sweep counts them): the item's own file
 * (and a Live Photo's movie kept on its still, `exif.livePhoto.key`, an original too), its web-playable copy
 * (`exif.webVideo.key`), its frames' files and renditions, its objects' crops. Paged by media id through the primary key and the
 * per-item indexes of frames and objects, so a walk over a big library costs one index range per page.
 */
export function sqliteBlobReferences(db: Db): Pick<MediaStore, 'blobReferences'> {
  const page = db.prepare(
    `WITH page AS (SELECT id, blob_key, status, CASE WHEN json_valid(exif) THEN exif END AS exif FROM media
       WHERE id > ? AND type != 'folder' ORDER BY id LIMIT ?)
     SELECT id AS mediaId, status, blob_key AS blobKey, 'original' AS role FROM page WHERE blob_key IS NOT NULL
     UNION ALL SELECT id, status, json_extract(exif, '$.livePhoto.key'), 'original' FROM page
       WHERE json_extract(exif, '$.livePhoto.key') IS NOT NULL
     UNION ALL SELECT id, status, json_extract(exif, '$.webVideo.key'), 'webVideo' FROM page
       WHERE json_extract(exif, '$.webVideo.key') IS NOT NULL
     UNION ALL SELECT p.id, p.status, f.blob_key, 'frame' FROM page p JOIN frames f ON f.media_id = p.id
     UNION ALL SELECT p.id, p.status, f.thumbnail_key, 'thumbnail' FROM page p JOIN frames f ON f.media_id = p.id
       WHERE f.thumbnail_key IS NOT NULL
     UNION ALL SELECT p.id, p.status, f.preview_key, 'preview' FROM page p JOIN frames f ON f.media_id = p.id
       WHERE f.preview_key IS NOT NULL
     UNION ALL SELECT p.id, p.status, o.blob_key, 'crop' FROM page p JOIN detected_objects o ON o.media_id = p.id
       WHERE o.blob_key IS NOT NULL
     ORDER BY 1`,
  );
  const last = db.prepare(
    `SELECT max(id) FROM (SELECT id FROM media WHERE id > ? AND type != 'folder' ORDER BY id LIMIT ?)`,
  );
  return {
    blobReferences: async (limit, afterId = '') => {
      const rows = page.all(afterId, limit) as Array<Omit<BlobReference, 'active'> & { status: string }>;
      const next = last.pluck().get(afterId, limit) as string | null;
      return {
        references: rows.map(({ status, ...r }) => ({ ...r, active: status === 'active' })),
        next,
      };
    },
  };
}
