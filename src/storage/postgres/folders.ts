import { isLtreePath } from '../../platform/ids.js';
import type { PgDb } from '../../platform/pgDb.js';
import type { MediaStore } from '../storage.js';
import type { ChildFolder, FolderSummary } from '../types.js';

/** How many of a folder's newest items a preview pick steps through looking for three with a frame. */
const PREVIEW_SCAN = 30;

/** Live images and videos beneath the folder f (any depth), over media m. */
const LIVE_ITEMS_BENEATH = `m.path <@ f.path AND m.status = 'active' AND m.is_current AND m.type IN ('image', 'video')`;

/**
 * Folder summaries and the folder tree's levels, each one statement for a whole page of folders. Counts
 * are count(*) over the GiST index on path (SQLite keeps counters instead): a folder with a million items
 * beneath costs a million index entries per summary — to be measured; a kept counter would be the fix.
 */
export function pgFolders(db: PgDb): Pick<MediaStore, 'folderSummaries' | 'childFolders'> {
  return {
    async folderSummaries(paths) {
      const out = new Map<string, FolderSummary>();
      if (paths.length === 0) return out;
      // A path the folder is no longer at (moved, deleted) counts nothing and shows nothing. Previews: the
      // first frames of the newest items beneath that have one (videos still pending have none).
      const rows = await db.many<{ path: string; n: number | null; previews: string[] | null }>(
        `SELECT p.path, s.n, s.previews
         FROM unnest($1::text[]) AS p(path)
         LEFT JOIN LATERAL (
           SELECT (SELECT count(*) FROM media m WHERE ${LIVE_ITEMS_BENEATH}) AS n,
             ARRAY(SELECT k FROM (
               SELECT (SELECT fr.blob_key FROM frames fr WHERE fr.media_id = m.id AND fr.status = 'active'
                       ORDER BY fr.seconds, fr.id LIMIT 1) AS k
               FROM media m WHERE ${LIVE_ITEMS_BENEATH}
               ORDER BY m.created_at DESC, m.id DESC LIMIT ${PREVIEW_SCAN}
             ) newest WHERE k IS NOT NULL LIMIT 3) AS previews
           FROM media f WHERE f.id = right(p.path, 32) AND f.path::text = p.path AND f.status = 'active'
         ) s ON true`,
        [paths],
      );
      for (const row of rows) out.set(row.path, { itemCount: row.n ?? 0, previewBlobKeys: row.previews ?? [] });
      return out;
    },

    async childFolders(parentPath, { limit, offset }) {
      if (!isLtreePath(parentPath)) return { folders: [], total: 0 };
      // Folders of a level from media_level_folders (030), by name as NOCASE orders it, then id.
      const row = await db.one<{ total: number; folders: ChildFolder[] | null }>(
        `SELECT
           (SELECT count(*) FROM media WHERE parent_path = $1::ltree AND type = 'folder'
              AND status = 'active' AND is_current) AS total,
           (SELECT json_agg(json_build_object('id', f.id, 'name', f.name, 'path', f.path::text,
                     'childCount', f.child_count, 'folderCount', f.folder_count, 'itemCount', f.item_count)
                   ORDER BY f.ord)
            FROM (
              SELECT f.id, f.name, f.path, f.ord,
                (SELECT count(*) FROM media m WHERE m.parent_path = f.path AND m.status = 'active' AND m.is_current)
                  AS child_count,
                (SELECT count(*) FROM media m WHERE m.parent_path = f.path AND m.type = 'folder'
                   AND m.status = 'active' AND m.is_current) AS folder_count,
                (SELECT count(*) FROM media m WHERE ${LIVE_ITEMS_BENEATH}) AS item_count
              FROM (
                SELECT id, name, path, row_number() OVER (ORDER BY lower(name COLLATE "C"), id) AS ord FROM media
                WHERE parent_path = $1::ltree AND type = 'folder' AND status = 'active' AND is_current
                ORDER BY lower(name COLLATE "C"), id LIMIT $2 OFFSET $3
              ) f
            ) f) AS folders`,
        [parentPath, limit, offset],
      );
      return { folders: row?.folders ?? [], total: row?.total ?? 0 };
    },
  };
}
