import type { MediaStore } from '../storage.js';
import type { Db } from './database.js';

const SHA256_RE = /^[0-9a-f]{64}$/;

/**
 * Items by the content hash of their own file. A blob key is `<sha256>.<ext>`, so the items holding given
 * bytes are one range of the `media_blob` index: `blob_key >= '<sha>.'` and `< '<sha>/'` ('/' follows '.').
 */
export function mediaContent(db: Db): Pick<MediaStore, 'findByContent'> {
  const byHash = db.prepare(
    `SELECT id, path, parent_path, name FROM media
     WHERE blob_key >= ? AND blob_key < ? AND dataset_id = ? AND status = 'active' AND type != 'folder'
     ORDER BY is_current DESC, created_at, id LIMIT 1`,
  );
  return {
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
