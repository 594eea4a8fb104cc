import type { MediaStore } from '../storage.js';
import type { FolderSummary } from '../types.js';
import type { Db } from './database.js';

/** How many of a folder's newest items a preview pick steps through looking for three with a frame. */
const PREVIEW_SCAN = 30;

/**
 * A folder's item count and previews without counting its subtree: the count
 * is the kept counter of media_scope_counts (live images and videos beneath),
 * the previews the newest items of its subtree scope that have a frame.
 */
export function folderSummaries(db: Db): Pick<MediaStore, 'folderSummaries'> {
  // One statement for every folder of the page; a path the folder is no longer at counts nothing.
  const counts = db.prepare(
    `SELECT f.value AS path, coalesce((
       SELECT sum(c.n) FROM media_scope_counts c
       WHERE c.scope = unhex(substr(f.value, -32)) AND c.lvl = 0 AND c.type IN ('image', 'video')
         AND EXISTS (SELECT 1 FROM media WHERE id = substr(f.value, -32) AND path = f.value AND status = 'active')
     ), 0) AS n
     FROM json_each(?) f`,
  );
  // Items without a frame yet (videos still pending) are passed over.
  const previews = db
    .prepare(
      `SELECT k FROM (
         SELECT (SELECT blob_key FROM frames WHERE media_id = lower(hex(s.item)) AND status = 'active'
                 ORDER BY seconds LIMIT 1) AS k
         FROM media_scope s INDEXED BY media_scope_created
         WHERE s.scope = ? AND s.lvl = 0 AND s.type IN ('image', 'video')
         ORDER BY s.created_at DESC, s.item DESC LIMIT ${PREVIEW_SCAN}
       ) WHERE k IS NOT NULL LIMIT 3`,
    )
    .pluck();
  return {
    async folderSummaries(paths) {
      const out = new Map<string, FolderSummary>();
      if (paths.length === 0) return out;
      for (const { path, n } of counts.all(JSON.stringify(paths)) as Array<{ path: string; n: number }>) {
        const previewBlobKeys = n === 0 ? [] : (previews.all(Buffer.from(path.slice(-32), 'hex')) as string[]);
        out.set(path, { itemCount: n, previewBlobKeys });
      }
      return out;
    },
  };
}
