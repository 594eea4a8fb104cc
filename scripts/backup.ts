/**
 * npm run backup -- --to DIR [--keep N]
 *
 * A consistent copy of the library while the server runs (src/features/backup/createBackup.ts): the database
 * as it is at one moment, then the files it references, only those DIR lacks (DIR/files is shared by every
 * backup in it), then the manifest. With --keep, only the N newest backups stay in DIR. Exit 0 done, 1 failed
 * (one line), 2 usage.
 */
import { loadConfig } from '../src/config.js';
import { createBackup } from '../src/features/backup/createBackup.js';
import { pruneBackups } from '../src/features/backup/prune.js';
import { DomainError } from '../src/platform/errors.js';
import { formatBytes, formatDuration } from '../src/cli/import/progress.js';
import { fail, openLibrary, option, progressLine } from './lib/library.js';

const argv = process.argv.slice(2);
const to = option(argv, '--to');
const keep = option(argv, '--keep');
if (!to || (keep !== undefined && !/^[1-9]\d*$/.test(keep))) {
  process.stderr.write('usage: npm run backup -- --to DIR [--keep N]\n');
  process.exit(2);
}
const config = loadConfig();
const library = await openLibrary(config);
try {
  const manifest = await createBackup(
    { storage: library.storage, blobs: library.blobs, config },
    // Beside the server: the whole database in one step, or each of its writes would start the copy again.
    { to, pagesPerStep: 0x7fffffff, onProgress: (p) => console.log(progressLine(p)) },
  );
  const total = manifest.files.reduce((n, f) => n + f.size, 0);
  console.log(
    `backup ${manifest.id} in ${to}: database ${formatBytes(manifest.database.size)}, ${manifest.files.length} files ` +
      `(${formatBytes(total)}), ${manifest.copied.files} new (${formatBytes(manifest.copied.bytes)}), ` +
      `in ${formatDuration(manifest.durationMs)}`,
  );
  for (const key of manifest.missing) console.log(`missing from the library, not in the backup: ${key}`);
  for (const key of manifest.corrupt) console.log(`damaged in the library (checksum), not in the backup: ${key}`);
  if (keep) {
    const pruned = await pruneBackups(to, Number(keep));
    if (pruned.removed.length) console.log(`removed ${pruned.removed.length} older backups, ${pruned.files} files`);
  }
  if (manifest.missing.length || manifest.corrupt.length) process.exitCode = 1;
} catch (err) {
  if (err instanceof DomainError) fail(`backup failed: ${err.message}`);
  throw err;
} finally {
  await library.close();
}
