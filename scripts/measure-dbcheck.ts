/**
 * npx tsx scripts/measure-dbcheck.ts FILE [--runs N]: how long SQLite's `quick_check` (what DB_CHECK_AT_START runs)
 * and `integrity_check` take on a copy of a library database (docs/measurements/startup.md, "Database check").
 * Reads a copy in the temp folder, so the file of a running server is not touched.
 */
import { copyFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

const file = process.argv[2];
const runsAt = process.argv.indexOf('--runs');
const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 3;
if (!file) {
  process.stderr.write('usage: npx tsx scripts/measure-dbcheck.ts FILE [--runs N]\n');
  process.exit(2);
}
const copy = path.join(os.tmpdir(), `dbcheck-${process.pid}.db`);
copyFileSync(file, copy);
try {
  const db = new Database(copy, { readonly: true });
  const ms = (pragma: string) => {
    const t = process.hrtime.bigint();
    db.pragma(pragma);
    return Math.round(Number(process.hrtime.bigint() - t) / 1e6);
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const quick = Array.from({ length: runs }, () => ms('quick_check(5)'));
  const integrity = Array.from({ length: runs }, () => ms('integrity_check(5)'));
  const items = (db.prepare('SELECT count(*) AS n FROM media').get() as { n: number }).n;
  db.close();
  const mb = statSync(copy).size / 1024 / 1024;
  console.log(`${path.basename(file)}: ${mb.toFixed(0)} MB, ${items} media rows, load ${os.loadavg()[0].toFixed(1)}`);
  console.log(
    `quick_check:     ${quick.join(', ')} ms (median ${median(quick)} ms, ${(mb / (median(quick) / 1000)).toFixed(0)} MB/s)`,
  );
  console.log(`integrity_check: ${integrity.join(', ')} ms (median ${median(integrity)} ms)`);
} finally {
  rmSync(copy, { force: true });
}
