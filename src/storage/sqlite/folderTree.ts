import type { MediaStore } from '../storage.js';
import type { ChildFolder } from '../types.js';
import type { Db } from './database.js';
import { subtreeBounds } from './mediaTree.js';

/** The live folders of one level with their counts: the folder tree's one query per level. */
export function sqliteFolderTree(db: Db): Pick<MediaStore, 'childFolders'> {
  // Folders of a level come from media_live_folders (migration 013); the direct count from the
  // kept counter (live_counts, keyed by the folder's id); subfolders again from media_live_folders.
  const page = db.prepare(
    `SELECT m.id, m.name, m.path,
       coalesce((SELECT n FROM live_counts c WHERE c.kind = 'children' AND c.key = m.id), 0) AS childCount,
       (SELECT count(*) FROM media f INDEXED BY media_live_folders
         WHERE f.parent_path = m.path AND f.type = 'folder' AND f.status = 'active' AND f.is_current = 1) AS folderCount
     FROM media m INDEXED BY media_live_folders
     WHERE m.parent_path = ? AND m.type = 'folder' AND m.status = 'active' AND m.is_current = 1
     ORDER BY m.name COLLATE NOCASE, m.id LIMIT ? OFFSET ?`,
  );
  const total = db
    .prepare(
      `SELECT count(*) FROM media INDEXED BY media_live_folders
       WHERE parent_path = ? AND type = 'folder' AND status = 'active' AND is_current = 1`,
    )
    .pluck();
  // Images and videos at any depth: a covering range on media_live_subtree (path, type, created_at).
  const itemsBeneath = db
    .prepare(
      `SELECT count(*) FROM media
       WHERE status = 'active' AND is_current = 1 AND path > ? AND path < ? AND type IN ('image', 'video')`,
    )
    .pluck();
  return {
    childFolders: async (parentPath, { limit, offset }) =>
      db.transaction(() => {
        const rows = page.all(parentPath, limit, offset) as Array<Omit<ChildFolder, 'itemCount'>>;
        const folders = rows.map((r) => ({ ...r, itemCount: itemsBeneath.get(...subtreeBounds(r.path)) as number }));
        return { folders, total: total.get(parentPath) as number };
      })(),
  };
}
