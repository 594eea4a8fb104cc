/**
 * A backup on disk and its manifest. A backup folder (BACKUP_DIR, `--to DIR`) holds one folder per backup,
 * named by its time, beside one `files/` folder they all share:
 *
 *   DIR/files/ab/cd/<key>            the blobs, content-addressed as in the library: a later backup copies only new ones
 *   DIR/<id>/library.db              the database as it was at one moment (library.pgdump on PostgreSQL)
 *   DIR/<id>/manifest.json           written last: a folder without one is an unfinished backup, never restored
 */
import { randomUUID } from 'node:crypto';
import { open, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { isBlobKey } from '../../files/blobStore.js';

export const MANIFEST_FILE = 'manifest.json';
export const FILES_DIR = 'files';

const fileEntry = z.object({ key: z.string().refine(isBlobKey), size: z.number().int().min(0), sha256: z.string() });

const manifestSchema = z.object({
  format: z.literal('lumen-backup'),
  version: z.literal(1),
  id: z.string(),
  createdAt: z.string(),
  engine: z.enum(['sqlite', 'postgres']),
  /** The database copy, in the backup's own folder. */
  database: z.object({
    // Named, not free: a restore reads it from the backup's folder and nowhere else.
    file: z.enum(['library.db', 'library.pgdump']),
    size: z.number().int().min(0),
    sha256: z.string(),
  }),
  /** Every blob the database copy references that the library had, each in the shared files/ folder. */
  files: z.array(fileEntry),
  /** Blobs the copy references that were missing from the library's store when it was made (the check names them). */
  missing: z.array(z.string()),
  /** Blobs whose bytes in the library no longer matched their key (bit rot): not copied, named here. */
  corrupt: z.array(z.string()),
  /** What this backup copied (the rest was in files/ already). */
  copied: z.object({ files: z.number().int(), bytes: z.number() }),
  durationMs: z.number(),
});

/** The manifest of one backup (manifest.json). */
export type BackupManifest = z.infer<typeof manifestSchema>;
export type ManifestFile = z.infer<typeof fileEntry>;

/** Where a blob lives in a backup's shared files/ folder (the library's own layout). */
export function backupBlobPath(root: string, key: string): string {
  return path.join(root, FILES_DIR, key.slice(0, 2), key.slice(2, 4), key);
}

/** A fresh backup id: the time, sortable and safe as a folder name (2026-11-27T09-12-41-123Z). */
export function newBackupId(now = new Date()): string {
  return now.toISOString().replace(/[:.]/g, '-');
}

/** Reads and checks a backup folder's manifest; null when there is none (unfinished) or it is not one of ours. */
export async function readManifest(backupDir: string): Promise<BackupManifest | null> {
  const text = await readFile(path.join(backupDir, MANIFEST_FILE), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const parsed = manifestSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Writes the manifest durably and atomically (temp file, fsync, rename): its presence means the backup is whole. */
export async function writeManifest(backupDir: string, manifest: BackupManifest): Promise<void> {
  const tmp = path.join(backupDir, `.${MANIFEST_FILE}.${randomUUID()}`);
  await writeFile(tmp, JSON.stringify(manifest));
  const fh = await open(tmp, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path.join(backupDir, MANIFEST_FILE));
}

/** A backup folder found in DIR: its id and manifest (null: unfinished or not ours). */
export interface FoundBackup {
  id: string;
  dir: string;
  manifest: BackupManifest | null;
}

/** The backup folders in `root`, oldest first (ids sort by time). */
export async function listBackupDirs(root: string): Promise<FoundBackup[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const dirs = entries.filter((e) => e.isDirectory() && e.name !== FILES_DIR && !e.name.startsWith('.'));
  const found: FoundBackup[] = [];
  for (const e of dirs.map((d) => d.name).sort()) {
    const dir = path.join(root, e);
    found.push({ id: e, dir, manifest: await readManifest(dir) });
  }
  return found;
}
