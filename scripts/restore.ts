/**
 * npm run restore -- --from DIR [--to DATA_DIR] [--force]
 *
 * Restores a backup (src/features/backup/restoreBackup.ts) into DATA_DIR (--to, else the configured one):
 * verifies it against its manifest first and refuses a damaged one, naming what is wrong; refuses a DATA_DIR
 * that holds a library unless --force (the database there is moved aside, never deleted); then runs the
 * integrity report over the restored library. DIR is one backup's folder, or a backup folder (the newest whole
 * backup in it). Stop the server of that DATA_DIR first. Exit 0 restored and whole, 1 refused or not whole, 2 usage.
 */
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { checkIntegrity } from '../src/features/backup/integrity.js';
import { quarantineUntracked } from '../src/features/backup/repair.js';
import { restoreBackup } from '../src/features/backup/restoreBackup.js';
import { openBlobStore } from '../src/files/openBlobStore.js';
import { DomainError } from '../src/platform/errors.js';
import { formatBytes } from '../src/cli/import/progress.js';
import { fail, openLibrary, option, progressLine } from './lib/library.js';
import { printReport } from './lib/report.js';

const argv = process.argv.slice(2);
const from = option(argv, '--from');
if (!from) {
  process.stderr.write('usage: npm run restore -- --from DIR [--to DATA_DIR] [--force]\n');
  process.exit(2);
}
const to = option(argv, '--to');
const config = loadConfig(to ? { ...process.env, DATA_DIR: path.resolve(to) } : process.env);
let movedAside: string | null = null;
try {
  const blobs = await openBlobStore(config, undefined, false);
  const result = await restoreBackup(
    { blobs },
    { from, dataDir: config.dataDir, force: argv.includes('--force'), onProgress: (p) => console.log(progressLine(p)) },
  );
  console.log(
    `restored backup ${result.backupId} (${result.createdAt}) into ${config.dataDir}: ${result.files} files, ` +
      formatBytes(result.bytes),
  );
  if (result.movedAside) console.log(`the database that was there was moved to ${result.movedAside}`);
  movedAside = result.movedAside;
} catch (err) {
  if (err instanceof DomainError) fail(`restore refused: ${err.message}`);
  throw err;
}
const library = await openLibrary(config);
try {
  if (movedAside) {
    // Files of the library that was there which the backup's database does not know (uploads newer than the
    // backup): the server's start-up sweep would delete them; they are set aside instead.
    const moved = await quarantineUntracked({ ...library, config }, 0);
    if (moved) console.log(`${moved} files the restored database does not reference were moved to DATA_DIR/quarantine`);
  }
  // Nothing else runs on this DATA_DIR now: every file counts, however new.
  const report = await checkIntegrity({ ...library, config }, 0);
  printReport(report);
  if (!report.ok) process.exitCode = 1;
} finally {
  await library.close();
}
