/**
 * Checksums of model files. A catalog entry either knows a file's sha256
 * ("known") or leaves it null, in which case the first fetch records it in
 * `<modelsDir>/checksums.lock.json` ("recorded": trust on first use); every
 * later fetch and verify compares against it. Records are keyed by
 * repository, revision and path, so renaming a catalog entry keeps them.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ModelEntry, ModelFile } from './catalog.js';

export interface LockRecord {
  sha256: string;
  bytes: number;
  recordedAt: string;
}

export interface LockFile {
  version: 1;
  files: Record<string, LockRecord>;
}

export const LOCK_NAME = 'checksums.lock.json';

export function lockPath(modelsDir: string): string {
  return path.join(modelsDir, LOCK_NAME);
}

export function readLock(modelsDir: string): LockFile {
  const file = lockPath(modelsDir);
  if (!existsSync(file)) return { version: 1, files: {} };
  const json = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockFile>;
  if (json.version !== 1 || typeof json.files !== 'object' || json.files === null)
    throw new Error(`${file}: not a version 1 checksum lock`);
  return { version: 1, files: json.files };
}

/** Writes the lock atomically (temp file + rename), keys sorted for stable diffs. */
export function writeLock(modelsDir: string, lock: LockFile): void {
  const sorted = Object.fromEntries(Object.entries(lock.files).sort(([a], [b]) => a.localeCompare(b)));
  const file = lockPath(modelsDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ version: 1, files: sorted }, null, 2) + '\n');
  renameSync(tmp, file);
}

export function lockKey(entry: ModelEntry, file: ModelFile): string {
  return entry.repo ? `${entry.repo}@${entry.revision}/${file.path}` : `local:${entry.dir}/${file.path}`;
}

export type ChecksumSource = 'known' | 'recorded' | 'none';

/** The digest a file must have, and where that expectation comes from. */
export function expectedChecksum(
  entry: ModelEntry,
  file: ModelFile,
  lock: LockFile,
): { sha256: string | null; bytes: number | null; source: ChecksumSource } {
  if (file.sha256) return { sha256: file.sha256, bytes: file.bytes ?? null, source: 'known' };
  const rec = lock.files[lockKey(entry, file)];
  if (rec) return { sha256: rec.sha256, bytes: rec.bytes, source: 'recorded' };
  return { sha256: null, bytes: null, source: 'none' };
}

/** sha256 (hex) and size of a file, streamed. */
export async function hashFile(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}
