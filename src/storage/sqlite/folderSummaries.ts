import type { MediaStore } from '../storage.js';
import type { FolderSummary } from '../types.js';
import type { Db } from './database.js';

/** How many of a folder's newest items a preview pick steps through looking for three with a frame. */
const PREVIEW_SCAN = 30;

/**
 * A folder's item count and previews without counting its subtree, for a
 * whole page of folders in one statement: the count is the kept counter of
 * media_scope_counts (live images and videos beneath), the previews the newest
 * items of the folder's subtree scope that have a frame (videos still pending
 * have none and are passed over). A path the folder is no longer at counts
 * nothing and shows nothing.
 */
export function folderSummaries(db: Db): Pick<MediaStore, 'folderSummaries'> {
  const summaries = db.prepare(
    `SELECT f.value AS path, coalesce(c.n, 0) AS n, CASE WHEN coalesce(c.n, 0) = 0 THEN '[]' ELSE (
       SELECT json_group_array(k) FROM (
         SELECT k FROM (
           SELECT (SELECT blob_key FROM frames WHERE media_id = lower(hex(s.item)) AND status = 'active'
                   ORDER BY seconds LIMIT 1) AS k
           FROM media_scope s INDEXED BY media_scope_created
           WHERE s.scope = unhex(substr(f.value, -32)) AND s.lvl = 0 AND s.type IN ('image', 'video')
           ORDER BY s.created_at DESC, s.item DESC LIMIT ${PREVIEW_SCAN}
         ) WHERE k IS NOT NULL LIMIT 3)
     ) END AS previews
     FROM json_each(?) f
     LEFT JOIN (
       SELECT f2.value AS path, (
         SELECT sum(c.n) FROM media_scope_counts c
         WHERE c.scope = unhex(substr(f2.value, -32)) AND c.lvl = 0 AND c.type IN ('image', 'video')
       ) AS n
       FROM json_each(?) f2
       WHERE EXISTS (SELECT 1 FROM media WHERE id = substr(f2.value, -32) AND path = f2.value AND status = 'active')
     ) c ON c.path = f.value`,
  );
  return {
    async folderSummaries(paths) {
      const out = new Map<string, FolderSummary>();
      if (paths.length === 0) return out;
      const json = JSON.stringify(paths);
      for (const row of summaries.all(json, json) as Array<{ path: string; n: number; previews: string }>) {
        out.set(row.path, { itemCount: row.n, previewBlobKeys: JSON.parse(row.previews) as string[] });
      }
      return out;
    },
  };
}
