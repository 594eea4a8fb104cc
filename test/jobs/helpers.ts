/** Shared set-up for the job queue tests: temp databases, a quiet logger, polling, the idempotent "effect" tables. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger, type Logger } from '../../src/platform/logger.js';
import type { Db } from '../../src/storage/sqlite/database.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/storage/sqlite/index.js';
import { sqliteJobStore } from '../../src/storage/sqlite/jobStore.js';
import type { JobStore } from '../../src/jobs/types.js';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A temp folder removed at exit; `file()` names a fresh database file in it. */
export function tempDir(prefix = 'jobs-') {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return { dir, file: () => path.join(dir, `q${++n}.db`) };
}

/** Opens the storage (migrations included) and a job store on its connection. */
export function openQueue(file: string): { storage: SqliteStorage; db: Db; jobs: JobStore } {
  const storage = openSqliteStorage(file);
  return { storage, db: storage.db, jobs: sqliteJobStore(storage.db) };
}

/** Logger that keeps lines (for assertions) and prints nothing. */
export function memoryLogger(): Logger & { lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', {}, (line) => lines.push(JSON.parse(line)));
  return Object.assign(logger, { lines });
}

/** Polls `check` every 10 ms until it returns true; throws after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 3000,
  what = 'condition',
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * Two tables a test handler writes: `job_effects` is the idempotent output (one
 * row per job id, upserted: what "exactly once in effect" means), `job_runs` an
 * append-only log of every execution, with its owner and times (to count runs
 * and detect overlaps).
 */
export function createEffectTables(db: Db): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS job_effects (job_id INTEGER PRIMARY KEY, value TEXT NOT NULL, writes INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS job_runs (job_id INTEGER NOT NULL, owner TEXT NOT NULL, started REAL NOT NULL, ended REAL);
  `);
}

export function recordRunStart(db: Db, jobId: number, owner: string): number {
  return Number(
    db
      .prepare(`INSERT INTO job_runs (job_id, owner, started) VALUES (?, ?, ?)`)
      .run(jobId, owner, performance.timeOrigin + performance.now()).lastInsertRowid,
  );
}

export function recordRunEnd(db: Db, runId: number): void {
  db.prepare(`UPDATE job_runs SET ended = ? WHERE rowid = ?`).run(performance.timeOrigin + performance.now(), runId);
}

/** The idempotent effect: re-running replaces the row, never adds a second one. */
export function writeEffect(db: Db, jobId: number, value: string): void {
  db.prepare(
    `INSERT INTO job_effects (job_id, value, writes) VALUES (?, ?, 1)
     ON CONFLICT (job_id) DO UPDATE SET value = excluded.value, writes = writes + 1`,
  ).run(jobId, value);
}
