/**
 * What is on disk for each catalog model: presence and checksum state.
 * `status` is cheap (sizes only, for `models list`); `verify` re-hashes.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { modelFolder, type ModelEntry } from './catalog.js';
import { expectedChecksum, hashFile, type ChecksumSource, type LockFile } from './checksums.js';

export type FileState =
  | 'missing'
  /** Present; its digest is pinned in the catalog. */
  | 'known'
  /** Present; its digest was recorded in checksums.lock.json at first fetch. */
  | 'recorded'
  /** Present, but nothing to check it against yet. */
  | 'unrecorded'
  /** Present and different from what was known/recorded (size for status, digest for verify). */
  | 'mismatch';

export interface FileStatus {
  path: string;
  optional: boolean;
  state: FileState;
  source: ChecksumSource;
  bytes?: number;
  /** Only from verify. */
  sha256?: string;
}

export interface ModelStatus {
  name: string;
  /** installed: every required file present; partial: some; missing: none. */
  presence: 'installed' | 'partial' | 'missing';
  files: FileStatus[];
}

function summarise(entry: ModelEntry, files: FileStatus[]): ModelStatus {
  const required = files.filter((f) => !f.optional);
  const present = required.filter((f) => f.state !== 'missing').length;
  return {
    name: entry.name,
    presence: present === required.length ? 'installed' : present === 0 ? 'missing' : 'partial',
    files,
  };
}

function sizeOf(file: string): number | null {
  try {
    return statSync(file).size;
  } catch {
    return null;
  }
}

/** Presence and checksum state without hashing (a recorded size that differs counts as a mismatch). */
export function modelStatus(entry: ModelEntry, modelsDir: string, lock: LockFile): ModelStatus {
  const folder = modelFolder(entry, modelsDir);
  const files = entry.files.map((f): FileStatus => {
    const expected = expectedChecksum(entry, f, lock);
    const size = sizeOf(path.join(folder, f.path));
    const base = { path: f.path, optional: f.optional, source: expected.source };
    if (size === null) return { ...base, state: 'missing' };
    if (expected.bytes !== null && expected.bytes !== size) return { ...base, state: 'mismatch', bytes: size };
    return { ...base, state: expected.source === 'none' ? 'unrecorded' : expected.source, bytes: size };
  });
  return summarise(entry, files);
}

/** Re-hashes every present file and compares with the known or recorded digest. */
export async function verifyModel(entry: ModelEntry, modelsDir: string, lock: LockFile): Promise<ModelStatus> {
  const folder = modelFolder(entry, modelsDir);
  const files: FileStatus[] = [];
  for (const f of entry.files) {
    const expected = expectedChecksum(entry, f, lock);
    const base = { path: f.path, optional: f.optional, source: expected.source };
    const file = path.join(folder, f.path);
    if (sizeOf(file) === null) {
      files.push({ ...base, state: 'missing' });
      continue;
    }
    const have = await hashFile(file);
    const state: FileState =
      expected.sha256 === null
        ? 'unrecorded'
        : have.sha256 === expected.sha256
          ? (expected.source as 'known' | 'recorded')
          : 'mismatch';
    files.push({ ...base, state, bytes: have.bytes, sha256: have.sha256 });
  }
  return summarise(entry, files);
}
