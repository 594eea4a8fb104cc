/**
 * The effect tables of the job tests (./helpers.ts) on PostgreSQL, for the tests whose processes share one
 * PostgreSQL database: `job_effects` (the idempotent output, one row per job, upserted) and `job_runs`
 * (every execution, with its owner and times, to count runs and spot overlaps).
 */
import type { PgRunner } from '../../src/platform/pgDb.js';

export async function createPgEffectTables(db: PgRunner): Promise<void> {
  await db.query(`
    CREATE TABLE IF NOT EXISTS job_effects (job_id bigint PRIMARY KEY, value text NOT NULL, writes integer NOT NULL);
    CREATE TABLE IF NOT EXISTS job_runs (run_id bigserial PRIMARY KEY, job_id bigint NOT NULL, owner text NOT NULL,
      started double precision NOT NULL, ended double precision)`);
}

const clock = () => performance.timeOrigin + performance.now();

export async function pgRunStart(db: PgRunner, jobId: number, owner: string): Promise<number> {
  const row = await db.one<{ run_id: number }>(
    `INSERT INTO job_runs (job_id, owner, started) VALUES ($1, $2, $3) RETURNING run_id`,
    [jobId, owner, clock()],
  );
  return row!.run_id;
}

export async function pgRunEnd(db: PgRunner, runId: number): Promise<void> {
  await db.query(`UPDATE job_runs SET ended = $2 WHERE run_id = $1`, [runId, clock()]);
}

/** The idempotent effect: re-running replaces the row, never adds a second one. */
export async function pgWriteEffect(db: PgRunner, jobId: number, value: string): Promise<void> {
  await db.query(
    `INSERT INTO job_effects (job_id, value, writes) VALUES ($1, $2, 1)
     ON CONFLICT (job_id) DO UPDATE SET value = excluded.value, writes = job_effects.writes + 1`,
    [jobId, value],
  );
}

export interface PgRunRow {
  job_id: number;
  owner: string;
  started: number;
  ended: number | null;
}
