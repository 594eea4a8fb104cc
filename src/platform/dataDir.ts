import { constants, existsSync, statSync } from 'node:fs';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StartupError } from './startupError.js';

const DENIED = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * Makes sure DATA_DIR exists and this process can write in it (and into the database file, when there is one),
 * before anything opens it. Without this a bind-mounted /data that the container's `node` user cannot write
 * fails deep inside SQLite as "unable to open database file" (issue #29); this says which directory, which
 * user and how to fix it, in one line (StartupError: main.ts prints it without a stack).
 */
export async function checkDataDir(dataDir: string, dbFile = path.join(dataDir, 'library.db')): Promise<void> {
  const probe = path.join(dataDir, `.write-check-${process.pid}`);
  try {
    await mkdir(dataDir, { recursive: true });
    await writeFile(probe, '');
    await rm(probe, { force: true });
    if (existsSync(dbFile)) await access(dbFile, constants.R_OK | constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (!DENIED.has(code)) throw err;
    const target = (err as NodeJS.ErrnoException).path ?? dataDir;
    throw new StartupError(notWritable(target, dataDir, code), { cause: err });
  }
}

/** One line: what cannot be written, as which user, who owns it, and the two ways out. */
function notWritable(target: string, dataDir: string, code: string): string {
  const uid = process.getuid?.() ?? -1;
  const gid = process.getgid?.() ?? -1;
  // The nearest existing path says who owns what we could not write.
  let existing = target;
  while (!existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  const st = statSync(existing);
  const owner = `${st.uid}:${st.gid}, mode ${(st.mode & 0o777).toString(8)}`;
  if (code === 'EROFS') {
    return `DATA_DIR ${dataDir} is on a read-only file system (${target}): mount it read-write (a Docker volume or bind mount without :ro)`;
  }
  return (
    `DATA_DIR ${dataDir} is not writable by this process (user id ${uid}, group id ${gid}): ${existing} belongs to ` +
    `${owner}. Fix: give it to this user (on the host: chown -R ${uid}:${gid} <the directory mounted as ${dataDir}>), ` +
    `or run the server as its owner (docker run --user ${st.uid}:${st.gid}, or user: in docker-compose.yml)`
  );
}
