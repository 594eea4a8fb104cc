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
  if (result.movedAside) console.log(`the library that was there was moved to ${result.movedAside}`);
} catch (err) {
  if (err instanceof DomainError) fail(`restore refused: ${err.message}`);
  throw err;
}
const library = await openLibrary(config);
try {
  // Nothing else runs on this DATA_DIR now: every file counts, however new.
  const report = await checkIntegrity({ ...library, config }, 0);
  printReport(report);
  if (!report.ok) process.exitCode = 1;
} finally {
  await library.close();
}
