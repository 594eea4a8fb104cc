/**
 * Where watched folders may be, and the operator's own list. WATCH_ROOTS bounds what an admin may add
 * through the API: an API key must never make the server read an arbitrary path of its disk. WATCH_DIRS
 * entries are the operator's own and need no root.
 */
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { forbidden, invalid } from '../../platform/errors.js';

/** One WATCH_DIRS entry. */
export interface EnvWatch {
  collectionId: string;
  dir: string;
  into: string;
  mirrorDeletions: boolean;
}

/** Folder names joined by '/', trimmed, empty parts dropped ('' = the collection root). */
export function normaliseInto(into: string | undefined): string {
  const parts = (into ?? '')
    .split('/')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.some((p) => p.length > 255)) throw invalid('into: each folder name must be at most 255 characters');
  return parts.join('/');
}

/**
 * Parses WATCH_DIRS: entries joined by ';', each `collectionId=/abs/dir`, then optionally `,into=A/B` and
 * `,mirror` (mirror deletions). Throws on a malformed entry (the server refuses to start with it).
 */
export function parseWatchDirs(text: string): EnvWatch[] {
  return text
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const eq = entry.indexOf('=');
      const [dir, ...options] = entry.slice(eq + 1).split(',');
      const out: EnvWatch = {
        collectionId: entry.slice(0, eq).trim(),
        dir: dir.trim(),
        into: '',
        mirrorDeletions: false,
      };
      if (eq <= 0 || !path.isAbsolute(out.dir))
        throw new Error(`WATCH_DIRS: "${entry}": want collectionId=/absolute/dir[,into=Folder/Sub][,mirror]`);
      for (const o of options.map((s) => s.trim())) {
        if (o === 'mirror') out.mirrorDeletions = true;
        else if (o.startsWith('into=')) out.into = normaliseInto(o.slice(5));
        else throw new Error(`WATCH_DIRS: "${entry}": unknown option "${o}" (into=…, mirror)`);
      }
      return out;
    });
}

const within = (child: string, parent: string) => child === parent || child.startsWith(parent + path.sep);

/**
 * The real path of a folder an admin asks to watch: it must exist, be a folder, and lie (after resolving
 * every symbolic link) inside one of the allowed roots.
 */
export async function checkAllowedDir(dir: string, roots: string[]): Promise<string> {
  if (!path.isAbsolute(dir)) throw invalid('path must be an absolute path on the server');
  if (roots.length === 0)
    throw forbidden('watched folders cannot be added through the API: the server sets no WATCH_ROOTS');
  const real = await realpath(dir).catch(() => null);
  if (!real || !(await stat(real)).isDirectory()) throw invalid(`path is not a folder on the server: ${dir}`);
  const realRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => path.resolve(r))));
  if (!realRoots.some((r) => within(real, r)))
    throw forbidden(`path is outside the folders the server allows (WATCH_ROOTS)`);
  return real;
}
