/**
 * A small tmpfs for the full-disk tests (issue #29): DATA_DIR on a real file system that really fills up. Only
 * root may mount one, and only the SQLite engine writes its database there, so the tests skip otherwise.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync, statfsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Mounts a tmpfs of `size` bytes on a fresh folder named after `prefix`; why not, when this process may not. */
export function mountTmpfs(size: number, prefix: string): { dir: string } | { skip: string } {
  if (process.getuid?.() !== 0) return { skip: 'not root: cannot mount a tmpfs' };
  if (process.env.TEST_DATABASE || process.env.TEST_DATABASE_URL) return { skip: 'PostgreSQL run: SQLite only' };
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (err) {
    rmdirSync(dir);
    return { skip: `mount failed: ${(err as Error).message.split('\n')[0]}` };
  }
}

/** Unmounts and removes it (lazily: a handle the app's workers still close). */
export function unmountTmpfs(dir: string): void {
  execFileSync('umount', ['--lazy', dir]);
  rmdirSync(dir);
}

/** Bytes an unprivileged writer may still use there. */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}
