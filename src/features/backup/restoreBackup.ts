import { copyFile, mkdir, open, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BlobStore } from '../../files/blobStore.js';
import { blobExt } from '../../files/blobStore.js';
import { DomainError } from '../../platform/errors.js';
import { fsyncDir } from './hashedCopy.js';
import { backupBlobPath } from './manifest.js';
import { createProgress, type ProgressReport } from './progress.js';
import { chooseBackup, verifyBackup } from './verifyBackup.js';

/** The blob store of the library restored into (its DATA_DIR's, or the S3 bucket the configuration names). */
export interface RestoreDeps {
  blobs: Pick<BlobStore, 'tempPath' | 'putFile'>;
}

export interface RestoreOptions {
  /** A backup's folder, or a backup folder (its newest whole backup is taken). */
  from: string;
  /** The DATA_DIR to restore into. */
  dataDir: string;
  /** Restore over a library that is there (its database is moved aside, never deleted). */
  force?: boolean;
  onProgress?: (p: ProgressReport) => void;
}

export interface RestoreResult {
  backupId: string;
  createdAt: string;
  files: number;
  bytes: number;
  /** Where the library that was there went (with --force), null when there was none. */
  movedAside: string | null;
}

const DB = 'library.db';

/**
 * Restores a SQLite library from a backup: the backup is verified first (verifyBackup: a damaged one is refused,
 * named), a DATA_DIR with a library.db is refused unless `force`, then the files go into the store and the
 * database copy takes library.db's place last (files before rows, as the library itself writes). With `force`
 * the database that was there moves to a folder beside it, never deleted; the files it referenced stay.
 */
export async function restoreBackup(deps: RestoreDeps, options: RestoreOptions): Promise<RestoreResult> {
  const chosen = await chooseBackup(options.from);
  const { manifest } = chosen;
  if (manifest.engine === 'postgres')
    throw new DomainError(
      'unprocessable',
      `backup ${chosen.dir} is of a PostgreSQL library: restore its database with ` +
        `pg_restore --clean --dbname "$DATABASE_URL" ${path.join(chosen.dir, manifest.database.file)}`,
    );
  const dataDir = path.resolve(options.dataDir);
  const live = await stat(path.join(dataDir, DB)).catch(() => null);
  if (live && !options.force)
    throw new DomainError(
      'conflict',
      `${dataDir} already holds a library (${DB}); nothing was restored. Stop its server and pass --force to ` +
        'restore over it (its database is moved aside, not deleted), or restore into another DATA_DIR',
    );
  const progress = createProgress(options.onProgress);
  await verifyBackup(chosen, progress);
  const bytes = manifest.files.reduce((n, f) => n + f.size, 0);
  progress.phase('files', manifest.files.length, bytes);
  // Sixteen at once: each put waits on its fsyncs, which overlap well (4 took twice as long on small files).
  let next = 0;
  const worker = async () => {
    while (next < manifest.files.length) {
      const f = manifest.files[next++];
      const tmp = deps.blobs.tempPath('restore');
      await copyFile(backupBlobPath(chosen.root, f.key), tmp);
      await deps.blobs.putFile(tmp, blobExt(f.key), f.sha256);
      progress.advance(1, f.size);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  progress.phase('database', 1, manifest.database.size);
  const movedAside = live ? await moveAside(dataDir, manifest.id) : null;
  await putDatabase(path.join(chosen.dir, manifest.database.file), dataDir);
  progress.phase('done', manifest.files.length, 0);
  return { backupId: manifest.id, createdAt: manifest.createdAt, files: manifest.files.length, bytes, movedAside };
}

/** The database that was there, with its WAL and marks, into `before-restore-<id>/` beside it. */
async function moveAside(dataDir: string, backupId: string): Promise<string> {
  const aside = path.join(dataDir, `before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}-of-${backupId}`);
  await mkdir(aside, { recursive: true });
  for (const name of [DB, `${DB}-wal`, `${DB}-shm`, `${DB}.closed-cleanly`]) {
    await rename(path.join(dataDir, name), path.join(aside, name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
  await fsyncDir(dataDir);
  return aside;
}

/** The database copy into place: copied beside, fsynced, renamed (a crash leaves the old state or the new). */
async function putDatabase(source: string, dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const tmp = path.join(dataDir, `${DB}.restoring`);
  await copyFile(source, tmp);
  const fh = await open(tmp, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path.join(dataDir, DB));
  await fsyncDir(dataDir);
}
