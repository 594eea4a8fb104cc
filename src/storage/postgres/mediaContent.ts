import type { PgDb } from '../../platform/pgDb.js';
import { toMedia } from '../sqlite/rows.js';
import type { MediaStore } from '../storage.js';
import { MEDIA_COLUMNS, type MediaRowWithText } from './mediaRows.js';

const SHA256_RE = /^[0-9a-f]{64}$/;

/**
 * Items by their content: the hash of their own file, or the Apple content identifier a Live Photo's two
 * halves share.
 *
 * By hash: a blob key is `<sha256>.<ext>`, so the items holding given
 * bytes are one range of media_blob_bytes (030) per hash: `blob_key >= '<sha>.'` and `< '<sha>/'` in byte
 * order ('/' follows '.'); every hash in one statement.
 */
export function mediaContent(db: PgDb): Pick<MediaStore, 'findByContent' | 'findByContentIdentifier'> {
  return {
    // Through media_content_identifier (031), by its very expression.
    findByContentIdentifier: async (collectionId, contentIdentifier) =>
      (
        await db.many<MediaRowWithText>(
          `SELECT ${MEDIA_COLUMNS} FROM media
           WHERE dataset_id = $1 AND (exif -> 'capture' ->> 'contentIdentifier') = $2 AND status = 'active'
           ORDER BY created_at, id`,
          [collectionId, contentIdentifier],
        )
      ).map(toMedia),
    findByContent: async (collectionId, sha256s) => {
      const hashes = [...new Set(sha256s)].filter((sha) => SHA256_RE.test(sha));
      if (hashes.length === 0) return [];
      // Per hash, one range of media_blob_bytes (030): blob_key in ['<sha>.', '<sha>/') in byte order.
      const rows = await db.many<{ sha: string; id: string; path: string; parent_path: string; name: string }>(
        `SELECT h.sha, m.id, m.path::text AS path, m.parent_path::text AS parent_path, m.name
         FROM unnest($1::text[]) WITH ORDINALITY AS h(sha, n)
         CROSS JOIN LATERAL (
           SELECT id, path, parent_path, name FROM media
           WHERE (blob_key COLLATE "C") >= h.sha || '.' AND (blob_key COLLATE "C") < h.sha || '/'
             AND status = 'active' AND type <> 'folder' AND dataset_id = $2
           ORDER BY is_current DESC, created_at, id LIMIT 1
         ) m
         ORDER BY h.n`,
        [hashes, collectionId],
      );
      return rows.map((r) => ({ sha256: r.sha, mediaId: r.id, path: r.path, parentPath: r.parent_path, name: r.name }));
    },
  };
}
