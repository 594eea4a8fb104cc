import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { isBlobKey } from '../../files/blobStore.js';
import { FILES_DIR, listBackupDirs } from './manifest.js';

/** What pruning removed: backup ids, and files no kept backup needs. */
export interface Pruned {
  removed: string[];
  files: number;
}

/**
 * Keeps the `keep` newest whole backups in `root` and removes the older ones, then the files in the shared
 * files/ folder that no kept manifest lists. While a backup is being written (a folder without a manifest yet)
 * no file is removed: that backup may be counting on one. Only the backup's copies go; never the library's.
 */
export async function pruneBackups(root: string, keep: number): Promise<Pruned> {
  const found = await listBackupDirs(root);
  const whole = found.filter((b) => b.manifest);
  const old = whole.slice(0, Math.max(0, whole.length - keep));
  for (const b of old) await rm(b.dir, { recursive: true, force: true });
  if (found.some((b) => !b.manifest)) return { removed: old.map((b) => b.id), files: 0 };
  const needed = new Set(whole.slice(old.length).flatMap((b) => b.manifest!.files.map((f) => f.key)));
  let files = 0;
  const filesDir = path.join(root, FILES_DIR);
  for (const a of await names(filesDir)) {
    for (const b of await names(path.join(filesDir, a))) {
      for (const key of await names(path.join(filesDir, a, b))) {
        if (!isBlobKey(key) || needed.has(key)) continue;
        await rm(path.join(filesDir, a, b, key), { force: true });
        files++;
      }
    }
  }
  return { removed: old.map((b) => b.id), files };
}

const names = (dir: string) => readdir(dir).catch(() => [] as string[]);
