import type { MediaStore } from '../storage.js';
import type { Db } from './database.js';
import { toMedia, type MediaRow } from './rows.js';

const SHA256_RE = /^[0-9a-f]{64}$/;

/**
 * Items by their content: the hash of their own file, or the Apple content identifier a Live Photo's two
 * halves share.
 *
 * By hash: A blob key is `<sha256>.<ext>`, so the items holding given
 * bytes are one range of the `media_blob` index: `blob_key >= '<sha>.'` and `< '<sha>/'` ('/' follows '.').
 */
export function mediaContent(db: Db): Pick<MediaStore, 'findByContent' | 'findByContentIdentifier'> {
  const byHash = db.prepare(
    `SELECT id, path, parent_path, name FROM media
     WHERE blob_key >= ? AND blob_key < ? AND dataset_id = ? AND status = 'active' AND type != 'folder'
     ORDER BY is_current DESC, created_at, id LIMIT 1`,
  );
  // Migration 026's partial index, by its very expression: `x = ?` implies `x IS NOT NULL`, so SQLite uses it.
  const byContentIdentifier = db.prepare(
    `SELECT * FROM media WHERE dataset_id = ?
     AND json_extract(CASE WHEN json_valid(exif) THEN exif END, '$.capture.contentIdentifier') = ?
     AND status = 'active' ORDER BY created_at, id`,
  );
  return {
    findByContentIdentifier: async (collectionId, contentIdentifier) =>
      (byContentIdentifier.all(collectionId, contentIdentifier) as MediaRow[]).map(toMedia),
    findByContent: async (collectionId, sha256s) => {
      const out = [];
      for (const sha256 of new Set(sha256s)) {
        if (!SHA256_RE.test(sha256)) continue;
        const row = byHash.get(`${sha256}.`, `${sha256}/`, collectionId) as
          { id: string; path: string; parent_path: string; name: string } | undefined;
        if (row) out.push({ sha256, mediaId: row.id, path: row.path, parentPath: row.parent_path, name: row.name });
      }
      return out;
    },
  };
}
