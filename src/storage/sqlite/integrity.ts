import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { StartupError } from '../../platform/startupError.js';

/** When to check the database at start: every time, only after a stop that did not close it, or never. */
export type StartCheck = 'always' | 'unclean' | 'off';

/** The file beside the database that says the last run closed it (written by markClosedCleanly). */
const closedMark = (file: string) => `${file}.closed-cleanly`;

/** Records that the database was closed cleanly: the next start may skip its check (`unclean`). */
export function markClosedCleanly(file: string): void {
  try {
    if (existsSync(file)) writeFileSync(closedMark(file), '');
  } catch {
    // A full disk: the next start checks the file, as after an unclean stop.
  }
}

/**
 * At start, before the database is opened for writing: SQLite's `PRAGMA quick_check` over the whole file (every
 * page and index entry's structure; not the index-against-table cross-check of integrity_check, which is many
 * times slower). A damaged file stops the start with one line saying how to restore (StartupError), rather than
 * serving from it and writing into it (issue #29). A file that is not there yet passes: it will be created.
 *
 * quick_check reads the whole file (28 MB in 25–45 ms from the page cache; a library of several GB takes
 * seconds, more from a cold disk), so by default (`unclean`) it runs only when the last run did not close the
 * database — a crash, a kill, a power cut, the first start of this version — and `always` runs it every time.
 */
export function checkDatabaseFile(file: string, when: StartCheck = 'always', backupDir?: string): void {
  const closedCleanly = existsSync(closedMark(file));
  // Taken away now: from here until the next clean close, a stop is an unclean one.
  rmSync(closedMark(file), { force: true });
  if (!existsSync(file) || when === 'off' || (when === 'unclean' && closedCleanly)) return;
  let problems: string[];
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      problems = (db.pragma('quick_check(5)') as Array<{ quick_check: string }>).map((r) => r.quick_check);
    } finally {
      db.close();
    }
  } catch (err) {
    // SQLITE_CORRUPT, SQLITE_NOTADB: too damaged to check at all. Anything else (a lock, permissions) is not ours.
    const code = (err as { code?: string }).code ?? '';
    if (!/^SQLITE_(CORRUPT|NOTADB)/.test(code)) throw err;
    problems = [(err as Error).message];
  }
  if (problems.length === 1 && problems[0] === 'ok') return;
  throw new StartupError(
    `${file} is damaged (SQLite quick_check: ${problems.join('; ').slice(0, 300)}); nothing was written to it. ` +
      `Restore: stop the server, run \`npm run restore -- --from ${backupDir ?? '<your backup folder>'} --to ` +
      `${path.dirname(file)} --force\` (the damaged file is moved aside, not deleted) and start again ` +
      `(without a backup, \`sqlite3 ${file} .recover | sqlite3 recovered.db\` saves what is readable, to put ` +
      `in place of library.db)`,
  );
}
