/**
 * npm run check [-- --repair] [--no-rehash] [--rate MB_PER_S] [--hours H]
 *
 * The integrity report (src/features/backup/integrity.ts) of the library in DATA_DIR, beside a running server:
 * originals and derived files missing, items without thumbnails, untracked files, and originals whose bytes no
 * longer match their key. The re-hash reads every original at --rate MB/s at most (default 50), saving its
 * position as it goes (DATA_DIR/integrity/rehash.json): stopped (Ctrl-C, --hours spent) it goes on from there
 * next time, so a big library is checked over several nights. --repair queues thumbnails and re-analysis where
 * derived files are missing and moves untracked files to DATA_DIR/quarantine; originals are never touched.
 * Exit 0 whole, 1 problems found, 2 usage.
 */
import { loadConfig } from '../src/config.js';
import { checkIntegrity, rehashStateFile } from '../src/features/backup/integrity.js';
import { rehashOriginals } from '../src/features/backup/rehash.js';
import { repairIntegrity } from '../src/features/backup/repair.js';
import { formatBytes } from '../src/cli/import/progress.js';
import { openLibrary, option } from './lib/library.js';
import { printReport } from './lib/report.js';

const argv = process.argv.slice(2);
const rate = Number(option(argv, '--rate') ?? 50);
const hours = option(argv, '--hours');
if (!Number.isFinite(rate) || rate < 0 || (hours !== undefined && !(Number(hours) > 0))) {
  process.stderr.write('usage: npm run check -- [--repair] [--no-rehash] [--rate MB_PER_S] [--hours H]\n');
  process.exit(2);
}
const config = loadConfig();
const library = await openLibrary(config);
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
try {
  if (!argv.includes('--no-rehash')) {
    let last = 0;
    const state = await rehashOriginals(library, {
      stateFile: rehashStateFile(config.dataDir),
      rateBytesPerSecond: rate * 1e6,
      maxMs: hours ? Number(hours) * 3_600_000 : undefined,
      signal: stop.signal,
      onProgress: (s) => {
        if (Date.now() - last < 5000) return;
        last = Date.now();
        console.log(`re-hash: ${s.files} originals, ${formatBytes(s.bytes)}, ${s.rotten.length} rotten`);
      },
    });
    if (state.position !== null) console.log('re-hash stopped; the next `npm run check` goes on from here');
  }
  const report = await checkIntegrity({ ...library, config });
  printReport(report);
  if (argv.includes('--repair')) {
    const done = await repairIntegrity({ ...library, config, wakeJobs: () => undefined }, report);
    console.log(
      `repair: ${done.renditionsQueued} items queued for thumbnails, ${done.reanalysisQueued} for re-analysis ` +
        `(the server's job runner does them), ${done.quarantined} untracked files moved to ${done.quarantineDir}`,
    );
  }
  if (!report.ok) process.exitCode = 1;
} finally {
  await library.close();
}
