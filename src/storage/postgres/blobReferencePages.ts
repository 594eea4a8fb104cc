import type { PgDb } from '../../platform/pgDb.js';
import type { MediaStore } from '../storage.js';
import type { BlobReference } from '../types.js';

/**
 * Every blob a page of items references (any status, as the orphan sweep counts them): the item's own file
 * (and a Live Photo's movie kept on its still, `exif.livePhoto.key`, an original too), its web-playable copy
 * (`exif.webVideo.key`), its frames' files and renditions, its objects' crops. Paged by media id through the
 * primary key and the per-item indexes of frames and objects, so a walk over a big library costs one index
 * range per page.
 */
export function pgBlobReferences(db: PgDb): Pick<MediaStore, 'blobReferences'> {
  return {
    blobReferences: async (limit, afterId = '') => {
      const rows = await db.many<{ media_id: string; status: string; blob_key: string; role: BlobReference['role'] }>(
        `WITH page AS MATERIALIZED (
           SELECT id, blob_key, status, exif FROM media WHERE id > $1 AND type <> 'folder' ORDER BY id LIMIT $2
         )
         SELECT id AS media_id, status, blob_key, 'original' AS role FROM page WHERE blob_key IS NOT NULL
         UNION ALL SELECT id, status, exif -> 'livePhoto' ->> 'key', 'original' FROM page
           WHERE (exif -> 'livePhoto' ->> 'key') IS NOT NULL
         UNION ALL SELECT id, status, exif -> 'webVideo' ->> 'key', 'webVideo' FROM page
           WHERE (exif -> 'webVideo' ->> 'key') IS NOT NULL
         UNION ALL SELECT p.id, p.status, f.blob_key, 'frame' FROM page p JOIN frames f ON f.media_id = p.id
         UNION ALL SELECT p.id, p.status, f.thumbnail_key, 'thumbnail' FROM page p JOIN frames f ON f.media_id = p.id
           WHERE f.thumbnail_key IS NOT NULL
         UNION ALL SELECT p.id, p.status, f.preview_key, 'preview' FROM page p JOIN frames f ON f.media_id = p.id
           WHERE f.preview_key IS NOT NULL
         UNION ALL SELECT p.id, p.status, o.blob_key, 'crop' FROM page p JOIN detected_objects o ON o.media_id = p.id
           WHERE o.blob_key IS NOT NULL
         ORDER BY 1`,
        [afterId, limit],
      );
      const last = await db.one<{ next: string | null }>(
        `SELECT max(id) AS next FROM (SELECT id FROM media WHERE id > $1 AND type <> 'folder' ORDER BY id LIMIT $2) p`,
        [afterId, limit],
      );
      return {
        references: rows.map((r) => ({
          mediaId: r.media_id,
          blobKey: r.blob_key,
          role: r.role,
          active: r.status === 'active',
        })),
        next: last?.next ?? null,
      };
    },
  };
}
