import type { MediaStore } from '../storage.js';
import type { ChildFolder } from '../types.js';
import type { Db } from './database.js';

/** The live folders of one level with their counts: the folder tree's one query per level. */
export function sqliteFolderTree(db: Db): Pick<MediaStore, 'childFolders'> {
  // Folders of a level come from media_live_folders (migration 016); the direct count and the items
  // beneath from the kept counters of media_scope_counts (migration 017, keyed by the folder's id);
  // subfolders again from media_live_folders.
  const page = db.prepare(
    `SELECT m.id, m.name, m.path,
       coalesce((SELECT sum(c.n) FROM media_scope_counts c WHERE c.scope = unhex(m.id) AND c.lvl = 1), 0) AS childCount,
       coalesce((SELECT sum(c.n) FROM media_scope_counts c
         WHERE c.scope = unhex(m.id) AND c.lvl = 0 AND c.type IN ('image', 'video')), 0) AS itemCount,
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
  return {
    childFolders: async (parentPath, { limit, offset }) =>
      db.transaction(() => {
        const folders = page.all(parentPath, limit, offset) as ChildFolder[];
        return { folders, total: total.get(parentPath) as number };
      })(),
  };
}
