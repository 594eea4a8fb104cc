import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Services } from '../kernel/services.js';
import { DomainError } from '../../platform/errors.js';
import { copyBlobs } from './copyBlobs.js';
import { hashFile } from './hashedCopy.js';
import { listBackupDirs, newBackupId, writeManifest, type BackupManifest } from './manifest.js';
import { pgDump } from './pgDump.js';
import { createProgress, type ProgressReport } from './progress.js';

/** What a backup reads: the database (its online copy), the blob store, and which engine runs. */
export type BackupDeps = Pick<Services, 'storage' | 'blobs'> & {
  config: Pick<Services['config'], 'databaseUrl' | 'databaseSchema'>;
};

export interface BackupOptions {
  /** The backup folder: each backup a folder of its own in it, the blobs shared in its files/. */
  to: string;
  onProgress?: (p: ProgressReport) => void;
  /** SQLite pages copied a step (storage.backupTo); a tool beside a running server passes a big one. */
  pagesPerStep?: number;
  /** Stops the backup between two files (the server shutting down); it then leaves no folder behind. */
  signal?: AbortSignal;
}

/**
 * Backs the library up while it runs: first the database as it is at one moment (SQLite's online backup;
 * pg_dump on PostgreSQL), then every blob that copy references, only those the backup folder lacks, then
 * the manifest (every file with its size and sha256, the database copy's checksum), written last so an
 * interrupted backup is never taken for a whole one. A file uploaded after the database copy is not needed by
 * it; every file the copy references is in the backup, or named in the manifest as missing from the library.
 */
export async function createBackup(deps: BackupDeps, options: BackupOptions): Promise<BackupManifest> {
  const started = Date.now();
  const root = path.resolve(options.to);
  await mkdir(root, { recursive: true });
  const id = await freshId(root);
  const dir = path.join(root, id);
  await mkdir(dir);
  const progress = createProgress(options.onProgress);
  progress.phase('database', 1, 0);
  try {
    const { file, blobKeys } = await snapshotDatabase(deps, dir, options.pagesPerStep);
    const database = { file: path.basename(file) as BackupManifest['database']['file'], ...(await hashFile(file)) };
    progress.advance(1, database.size);
    const copied = await copyBlobs(deps.blobs, root, blobKeys, progress, options.signal);
    const manifest: BackupManifest = {
      format: 'lumen-backup',
      version: 1,
      id,
      createdAt: new Date(started).toISOString(),
      engine: deps.config.databaseUrl ? 'postgres' : 'sqlite',
      database,
      files: copied.files,
      missing: copied.missing,
      corrupt: copied.corrupt,
      copied: { files: copied.copiedFiles, bytes: copied.copiedBytes },
      durationMs: Date.now() - started,
    };
    await writeManifest(dir, manifest);
    progress.phase('done', manifest.files.length, 0);
    return manifest;
  } catch (err) {
    // An unfinished backup leaves no folder behind (the blobs it copied stay for the next one to reuse).
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** The database copy in the backup's folder, and the blob keys it references. */
async function snapshotDatabase(deps: BackupDeps, dir: string, pagesPerStep?: number) {
  const { databaseUrl, databaseSchema } = deps.config;
  if (databaseUrl) {
    const file = path.join(dir, 'library.pgdump');
    await pgDump(databaseUrl, databaseSchema, file);
    // Referenced now, a moment after the dump: a row of the dump removed since (a video's frame sampled again)
    // may miss its file; the integrity report after a restore would name it.
    return { file, blobKeys: await liveBlobKeys(deps) };
  }
  if (!deps.storage.backupTo) throw new DomainError('unavailable', 'this database engine cannot be backed up here');
  const file = path.join(dir, 'library.db');
  const { blobKeys } = await deps.storage.backupTo(file, { pagesPerStep });
  return { file, blobKeys };
}

/** Every blob key the library's rows reference, walking the items in pages. */
async function liveBlobKeys({ storage }: Pick<Services, 'storage'>): Promise<string[]> {
  const keys = new Set<string>();
  let after: string | null = '';
  while (after !== null) {
    const page = await storage.media.blobReferences(500, after);
    for (const r of page.references) keys.add(r.blobKey);
    after = page.next;
  }
  return [...keys].sort();
}

/** A backup id not taken yet in `root` (two backups in the same millisecond get a suffix). */
async function freshId(root: string): Promise<string> {
  const taken = new Set((await listBackupDirs(root)).map((b) => b.id));
  const base = newBackupId();
  let id = base;
  for (let n = 1; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}
