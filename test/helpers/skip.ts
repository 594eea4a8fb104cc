import { existsSync } from 'node:fs';
import path from 'node:path';

/** The shared folder beside the repository (real models and fixtures), when present. */
export const SHARED_DIR = path.resolve(import.meta.dirname, '..', '..', '..', 'shared');

/** Returns the path under ../shared when it exists; otherwise prints a SKIP line and returns null. */
export function sharedPath(rel: string, why: string): string | null {
  const p = path.join(SHARED_DIR, rel);
  if (existsSync(p)) return p;
  console.log(`SKIP ${why}: ${p} is absent`);
  return null;
}
