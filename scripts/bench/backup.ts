/**
 * `npm run bench -- backup` (issue #29): a library of 10,000 items (BENCH_BACKUP_ITEMS; 300 in --quick):
 * a full backup, an incremental one after 1% new items, one with nothing new, a restore (verify + copy), each
 * beside a plain `cp -a` of the same data; the integrity check's existence pass; the re-hash rate (MB/s of
 * originals) unthrottled; and browse p99 beside a throttled re-hash running in the same process.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBackup } from '../../src/features/backup/createBackup.js';
import { checkIntegrity, rehashStateFile } from '../../src/features/backup/integrity.js';
import { readRehashState, rehashOriginals } from '../../src/features/backup/rehash.js';
import { restoreBackup } from '../../src/features/backup/restoreBackup.js';
import { LocalBlobStore } from '../../src/files/localBlobStore.js';
import { benchLibrary, type BenchLibrary } from './backupLibrary.js';
import { measure, now, stats, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';

const MB = 1e6;

export async function runBackupBench(opts: BenchOptions): Promise<SectionResult> {
  const started = now();
  const items = opts.quick ? 300 : Number(process.env.BENCH_BACKUP_ITEMS ?? 10_000);
  const originalBytes = Number(process.env.BENCH_BACKUP_ORIGINAL_BYTES ?? 40_000);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-backup-'));
  const dataDir = path.join(tmp, 'data');
  const rows: BenchRow[] = [];
  const findings: string[] = [];
  opts.log(`backup: filling ${items} items`);
  const lib = await benchLibrary(dataDir, items, originalBytes);
  const deps = { storage: lib.storage, blobs: lib.blobs, config: { databaseUrl: undefined, databaseSchema: 'public' } };
  try {
    const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
      const t0 = now();
      const out = await fn();
      return [out, now() - t0];
    };
    const cp = (to: string) => {
      const t0 = now();
      execFileSync('cp', ['-a', dataDir, to]);
      return now() - t0;
    };
    const bk = path.join(tmp, 'backups');
    const [full, fullMs] = await timed(() => createBackup(deps, { to: bk }));
    const bytes = full.copied.bytes + full.database.size;
    rows.push(row('full', `full backup of ${items} items`, fullMs, cp(path.join(tmp, 'cp1')), bytes));
    const added = await lib.add(Math.max(1, Math.round(items / 100)));
    const [inc, incMs] = await timed(() => createBackup(deps, { to: bk }));
    rows.push(row('incremental', `incremental backup, ${inc.copied.files} new files`, incMs, null, inc.copied.bytes));
    if (inc.copied.bytes !== added) findings.push(`incremental copied ${inc.copied.bytes} B, ${added} B were new`);
    const [none, noneMs] = await timed(() => createBackup(deps, { to: bk }));
    rows.push(row('unchanged', `backup with nothing new (${none.copied.files} copied)`, noneMs, null, 0));
    const target = path.join(tmp, 'restored');
    const blobs = new LocalBlobStore(target);
    await blobs.init();
    const [, restoreMs] = await timed(() => restoreBackup({ blobs }, { from: bk, dataDir: target }));
    const restoredBytes = none.files.reduce((n, f) => n + f.size, none.database.size);
    rows.push(
      row('restore', 'restore (verify every sha256, then copy)', restoreMs, cp(path.join(tmp, 'cp2')), restoredBytes),
    );
    const [report, checkMs] = await timed(() => checkIntegrity({ ...lib, config: { dataDir } }, 0));
    // The bench's items have no renditions: the report counts them all as items without thumbnails.
    rows.push(row('check', `integrity existence pass (${report.files} files)`, checkMs, null, 0));
    const stateFile = path.join(tmp, 'rehash.json');
    const [pass, rehashMs] = await timed(() => rehashOriginals(lib, { stateFile, rateBytesPerSecond: 0 }));
    rows.push(row('rehash', `re-hash of ${pass.files} originals, unthrottled`, rehashMs, null, pass.bytes));
    rows.push(await browseBeside(lib, dataDir, opts.quick));
    findings.push(
      'Files are fresh in the page cache (just written): rates are of CPU and copies, not of a cold disk.',
      'Browse during the check: `npm run check` runs as its own process over the same files and database; the ' +
        'MB/s read is what its re-hash managed meanwhile (at most the 50 MB/s asked).',
    );
  } finally {
    await lib.storage.close();
    if (!opts.keep) rmSync(tmp, { recursive: true, force: true });
    else opts.log(`kept ${tmp}`);
  }
  return {
    section: 'backup',
    quick: opts.quick,
    setup: { items, originalBytes, frameBytes: Math.ceil(originalBytes / 10) },
    rows,
    findings,
    durationMs: now() - started,
  };
}

function row(id: string, label: string, ms: number, cpMs: number | null, bytes: number): BenchRow {
  return {
    id,
    label,
    ours: stats([ms]),
    baseline: cpMs === null ? null : { label: 'cp -a of DATA_DIR', stats: stats([cpMs]) },
    rate: bytes ? { unit: 'MB/s', ours: bytes / MB / (ms / 1000), baseline: null } : undefined,
  };
}

/**
 * Browse p99 while `npm run check` (its re-hash throttled to 50 MB/s) runs as its own process over the same
 * library, as an operator runs it beside the server, beside the same browse idle.
 */
async function browseBeside(lib: BenchLibrary, dataDir: string, quick: boolean): Promise<BenchRow> {
  const budgetMs = quick ? 2000 : 10_000;
  const browse = () => lib.storage.media.browse(lib.browse());
  // Between two browses the event loop turns, as between two requests.
  const yieldLoop = () => new Promise((resolve) => setImmediate(resolve));
  const idle = await measure(browse, { reps: 1e6, warmup: 20, budgetMs, before: yieldLoop });
  const stateFile = rehashStateFile(dataDir);
  rmSync(stateFile, { force: true });
  const check = spawn(process.execPath, ['--import', 'tsx', 'scripts/check.ts', '--rate', '50'], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => check.once('exit', resolve));
  // Measured once the re-hash has saved its first page: the check is reading originals.
  for (const until = Date.now() + 30_000; !existsSync(stateFile) && Date.now() < until;)
    await new Promise((r) => setTimeout(r, 50));
  const before = await readRehashState(stateFile);
  const busy = await measure(browse, { reps: 1e6, warmup: 0, budgetMs, before: yieldLoop });
  const after = await readRehashState(stateFile);
  check.kill('SIGINT');
  await exited;
  const mb = ((after?.bytes ?? 0) - (before?.bytes ?? 0)) / MB;
  return {
    id: 'browse-during-check',
    label: `browse (100 items) while npm run check re-hashes at 50 MB/s (${(mb / (budgetMs / 1000)).toFixed(1)} MB/s read)`,
    ours: busy,
    baseline: { label: 'the same browse, idle', stats: idle },
  };
}
