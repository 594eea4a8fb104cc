/**
 * One pass over a watched folder: every regular file (by its path relative to the folder, '/'-separated),
 * leaving out hidden and housekeeping names (platform/mediaNames.ts). Symbolic links are not followed at
 * all, to folders or files: a link could lead outside the folders the operator allowed.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { isSkippedName } from '../../platform/mediaNames.js';
import type { FileSeen } from './importFile.js';

export async function scanFolder(root: string): Promise<FileSeen[]> {
  const out: FileSeen[] = [];
  const visit = async (dir: string, rel: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // gone or unreadable meanwhile: the next pass sees it again
    }
    for (const e of entries) {
      if (isSkippedName(e.name)) continue;
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      const absPath = path.join(dir, e.name);
      if (e.isDirectory()) await visit(absPath, relPath);
      else if (e.isFile()) {
        const st = await lstat(absPath).catch(() => null);
        if (st?.isFile()) out.push({ relPath, absPath, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  await visit(root, '');
  return out;
}

/** Whether a path relative to a watched folder passes the name rules at every level. */
export const relPathWatched = (relPath: string): boolean => relPath.split('/').every((p) => p && !isSkippedName(p));
