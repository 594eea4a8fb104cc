import { stat } from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../../platform/errors.js';
import { hashFile } from './hashedCopy.js';
import { backupBlobPath, listBackupDirs, readManifest, type BackupManifest } from './manifest.js';
import type { BackupProgress } from './progress.js';

/** A backup chosen for a restore: its folder, the folder of its shared files, its manifest. */
export interface ChosenBackup {
  dir: string;
  root: string;
  manifest: BackupManifest;
}

/**
 * The backup `from` names: a backup's own folder (it has a manifest.json), or a backup folder holding several,
 * whose newest whole one is taken. Refused (not_found) when there is none.
 */
export async function chooseBackup(from: string): Promise<ChosenBackup> {
  const dir = path.resolve(from);
  const own = await readManifest(dir);
  if (own) return { dir, root: path.dirname(dir), manifest: own };
  const whole = (await listBackupDirs(dir)).filter((b) => b.manifest);
  const newest = whole[whole.length - 1];
  if (!newest?.manifest) throw new DomainError('not_found', `no backup in ${dir} (no folder with a manifest.json)`);
  return { dir: newest.dir, root: dir, manifest: newest.manifest };
}

/** Problems named at most (the count says how many more). */
const NAMED = 10;

/**
 * Checks a backup against its manifest before anything is restored from it: the database copy's size and
 * sha256, and every file's presence, size and sha256 (each re-hashed: a flipped byte is found). A damaged
 * backup is refused (unprocessable) with a message naming what is wrong.
 */
export async function verifyBackup(chosen: ChosenBackup, progress: BackupProgress): Promise<void> {
  const { manifest, dir, root } = chosen;
  const problems: string[] = [];
  const total = manifest.files.reduce((n, f) => n + f.size, manifest.database.size);
  progress.phase('verifying', manifest.files.length + 1, total);
  const dbFile = path.join(dir, manifest.database.file);
  const db = await hashFile(dbFile).catch(() => null);
  if (!db) problems.push(`${manifest.database.file}: missing`);
  else if (db.size !== manifest.database.size || db.sha256 !== manifest.database.sha256)
    problems.push(`${manifest.database.file}: checksum does not match the manifest (changed or damaged)`);
  progress.advance(1, manifest.database.size);
  for (const f of manifest.files) {
    const file = backupBlobPath(root, f.key);
    const relative = path.relative(root, file);
    const st = await stat(file).catch(() => null);
    if (!st) problems.push(`${relative}: missing`);
    else if (st.size !== f.size) problems.push(`${relative}: ${st.size} bytes, the manifest says ${f.size}`);
    else if ((await hashFile(file)).sha256 !== f.sha256)
      problems.push(`${relative}: sha256 does not match the manifest (damaged)`);
    progress.advance(1, f.size);
  }
  if (problems.length === 0) return;
  const more = problems.length > NAMED ? `; and ${problems.length - NAMED} more` : '';
  throw new DomainError(
    'unprocessable',
    `backup ${dir} is damaged, nothing was restored: ${problems.slice(0, NAMED).join('; ')}${more}`,
  );
}
