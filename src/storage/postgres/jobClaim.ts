import type { JobStore } from '../../jobs/types.js';
import type { PgDb } from '../../platform/pgDb.js';
import { checkIso, checkLease, clip, iso, toJob, type JobRow } from '../sqlite/jobRows.js';

/**
 * The columns of a job as the engine-neutral mapper (toJob) reads them: the json columns as their text, as
 * SQLite keeps them.
 */
export const JOB_COLUMNS = `id, type, payload::text AS payload, dedupe_key, priority, status, attempts, max_attempts,
  run_after, lease_owner, lease_expires_at, last_error, progress::text AS progress, created_at, updated_at,
  started_at, finished_at`;

/** Any type when $2 is NULL, else the types in the text array $2. */
const TYPE_FILTER = `($2::text[] IS NULL OR type = ANY($2::text[]))`;

/**
 * Claiming a job: give up on expired jobs with no attempts left, then reclaim an expired lease, else take
 * the next queued job. Each is one statement whose row is picked with FOR UPDATE SKIP LOCKED, so claimers in
 * any number of processes never wait on each other and never take the same job: a row another claimer has
 * locked is skipped, and one it has already updated no longer matches (READ COMMITTED re-checks the
 * condition on the row's newest version before locking it).
 */
export function pgJobClaims(db: PgDb): Pick<JobStore, 'claim' | 'runningLeaseOwners' | 'expireLeases'> {
  // Params: $1 now, $2 types.
  const exhaust = `UPDATE jobs SET status = 'failed', finished_at = $1, updated_at = $1, lease_expires_at = NULL,
       last_error = 'the worker stopped responding (crashed, or stalled past its lease) on the last of '
                    || max_attempts || ' attempts' || coalesce(': ' || last_error, '')
     WHERE id IN (SELECT id FROM jobs WHERE status = 'running' AND lease_expires_at <= $1
                    AND attempts >= max_attempts AND ${TYPE_FILTER} FOR UPDATE SKIP LOCKED)`;
  // Params: $1 now, $2 types, $3 owner, $4 expires.
  const reclaim = `UPDATE jobs SET lease_owner = $3, lease_expires_at = $4, attempts = attempts + 1,
       started_at = $1, updated_at = $1, last_error = 'lease expired: the previous worker crashed or stalled'
     WHERE status = 'running' AND id = (SELECT id FROM jobs
                 WHERE status = 'running' AND lease_expires_at <= $1 AND attempts < max_attempts AND ${TYPE_FILTER}
                 ORDER BY priority, lease_expires_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING ${JOB_COLUMNS}`;
  const take = (where: string, order: string) => `UPDATE jobs SET status = 'running', lease_owner = $3,
       lease_expires_at = $4, attempts = attempts + 1, started_at = $1, updated_at = $1
     WHERE status = 'queued' AND id = (SELECT id FROM jobs
                 WHERE status = 'queued' AND run_after <= $1 AND ${TYPE_FILTER} ${where}
                 ORDER BY ${order} LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING ${JOB_COLUMNS}`;
  const takeOldest = take('', 'priority, run_after, id');
  // 'newest': the most urgent priority due fixed first, the jobs_claim index is read backwards, so this costs
  // what takeOldest does, whatever the backlog...
  const takeNewest = take(
    `AND priority = (SELECT min(priority) FROM jobs WHERE status = 'queued' AND run_after <= $1 AND ${TYPE_FILTER})`,
    'run_after DESC, id DESC',
  );
  // ...unless other claimers hold every job of that priority: then the whole order, an incremental sort over
  // the priority's group, where locked rows are skipped like any other.
  const takeNewestAnyPriority = take('', 'priority, run_after DESC, id DESC');

  return {
    async runningLeaseOwners() {
      const rows = await db.many<{ lease_owner: string }>(
        `SELECT DISTINCT lease_owner FROM jobs WHERE status = 'running' AND lease_owner IS NOT NULL`,
      );
      return rows.map((r) => r.lease_owner);
    },
    async expireLeases(list, now = new Date()) {
      if (list.length === 0) return 0;
      const result = await db.query(
        `UPDATE jobs SET lease_expires_at = $1, updated_at = $1
         WHERE status = 'running' AND lease_owner = ANY($2::text[]) AND lease_expires_at > $1`,
        [now.toISOString(), [...list]],
      );
      return result.rowCount ?? 0;
    },
    async claim(owner, types, leaseMs, now = new Date(), order = 'oldest') {
      checkLease(leaseMs);
      if (types !== null && types.length === 0) return null;
      const at = now.toISOString();
      const typeList = types === null ? null : [...types];
      await db.query(exhaust, [at, typeList]);
      const params = [at, typeList, owner, iso(now.getTime() + leaseMs)];
      const row =
        (await db.one<JobRow>(reclaim, params)) ??
        (order === 'newest'
          ? ((await db.one<JobRow>(takeNewest, params)) ?? (await db.one<JobRow>(takeNewestAnyPriority, params)))
          : await db.one<JobRow>(takeOldest, params));
      return row ? toJob(row) : null;
    },
  };
}

/** What the worker holding a job's lease does with it; each is a no-op (false) once the lease is lost. */
export function pgJobLeases(db: PgDb): Pick<JobStore, 'heartbeat' | 'complete' | 'fail' | 'release' | 'setProgress'> {
  // Params: $1 id, $2 owner, $3 now.
  const OWNED = `id = $1 AND status = 'running' AND lease_owner = $2`;
  const run = async (sql: string, id: number, owner: string, ...more: unknown[]): Promise<boolean> => {
    const result = await db.query(sql, [id, owner, iso(Date.now()), ...more]);
    return result.rowCount === 1;
  };
  return {
    async heartbeat(id, owner, leaseMs) {
      checkLease(leaseMs);
      return run(
        `UPDATE jobs SET lease_expires_at = $4, updated_at = $3 WHERE ${OWNED}`,
        id,
        owner,
        iso(Date.now() + leaseMs),
      );
    },
    async complete(id, owner) {
      return run(
        `UPDATE jobs SET status = 'succeeded', lease_expires_at = NULL, finished_at = $3, updated_at = $3
         WHERE ${OWNED}`,
        id,
        owner,
      );
    },
    async fail(id, owner, error, retryAt) {
      if (retryAt === null) {
        return run(
          `UPDATE jobs SET status = 'failed', last_error = $4, lease_expires_at = NULL, finished_at = $3,
             updated_at = $3 WHERE ${OWNED}`,
          id,
          owner,
          clip(error),
        );
      }
      return run(
        `UPDATE jobs SET status = 'queued', run_after = $5, last_error = $4, lease_owner = NULL,
           lease_expires_at = NULL, updated_at = $3 WHERE ${OWNED}`,
        id,
        owner,
        clip(error),
        checkIso(retryAt, 'retryAt'),
      );
    },
    async release(id, owner, runAfter) {
      return run(
        `UPDATE jobs SET status = 'queued', run_after = coalesce($4::timestamptz, $3::timestamptz), attempts = greatest(attempts - 1, 0),
           lease_owner = NULL, lease_expires_at = NULL, updated_at = $3 WHERE ${OWNED}`,
        id,
        owner,
        runAfter ? checkIso(runAfter, 'runAfter') : null,
      );
    },
    async setProgress(id, owner, progress) {
      return run(
        `UPDATE jobs SET progress = $4::json, updated_at = $3 WHERE ${OWNED}`,
        id,
        owner,
        JSON.stringify(progress ?? null),
      );
    },
  };
}
