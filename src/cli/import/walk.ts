/**
 * Walks the folder to import: every regular file with its path relative to the root ('/'-separated), size
 * and mtime. Skipped, and counted: hidden and housekeeping names (platform/mediaNames.ts). Symbolic links
 * to folders are not followed (a link could lead out of the folder, or round in a circle); a link to a file
 * is read as that file.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { isSkippedName } from '../../platform/mediaNames.js';

export interface WalkedFile {
  /** Relative to the root, '/'-separated. */
  relPath: string;
  absPath: string;
  size: number;
  mtimeMs: number;
}

export interface WalkResult {
  files: WalkedFile[];
  /** Hidden and housekeeping entries left out, and folder links not followed. */
  skipped: string[];
}

/** Every file under `root`, sorted by relative path (a stable order: reruns go the same way). */
export async function walk(root: string): Promise<WalkResult> {
  const files: WalkedFile[] = [];
  const skipped: string[] = [];
  const visit = async (dir: string, rel: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      skipped.push(`${rel || '.'} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
      return;
    }
    for (const entry of entries) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      const absPath = path.join(dir, entry.name);
      if (isSkippedName(entry.name)) {
        skipped.push(relPath);
        continue;
      }
      if (entry.isDirectory()) {
        await visit(absPath, relPath);
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      const st = await stat(absPath).catch(() => null);
      if (!st) skipped.push(`${relPath} (broken link)`);
      else if (st.isDirectory()) skipped.push(`${relPath} (folder link, not followed)`);
      else if (st.isFile()) files.push({ relPath, absPath, size: st.size, mtimeMs: st.mtimeMs });
    }
  };
  await visit(root, '');
  files.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  return { files, skipped };
}
