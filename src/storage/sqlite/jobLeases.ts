import type { JobStore } from '../../jobs/types.js';
import type { Db } from './database.js';
import { checkIso, checkLease, clip, iso, toJob, TYPE_FILTER, type JobRow } from './jobRows.js';

/**
 * Claiming a job, in one IMMEDIATE transaction: first give up on expired jobs
 * with no attempts left, then reclaim an expired lease, else take the next
 * queued job.
 */
export function jobClaims(db: Db): Pick<JobStore, 'claim' | 'runningLeaseOwners' | 'expireLeases'> {
  const exhaust = db.prepare(
    `UPDATE jobs SET status = 'failed', finished_at = @now, updated_at = @now, lease_expires_at = NULL,
       last_error = 'the worker stopped responding (crashed, or stalled past its lease) on the last of '
                    || max_attempts || ' attempts' || coalesce(': ' || last_error, '')
     WHERE status = 'running' AND lease_expires_at <= @now AND attempts >= max_attempts AND ${TYPE_FILTER}`,
  );
  const reclaim = db.prepare(
    `UPDATE jobs SET lease_owner = @owner, lease_expires_at = @expires, attempts = attempts + 1,
       started_at = @now, updated_at = @now,
       last_error = 'lease expired: the previous worker crashed or stalled'
     WHERE id = (SELECT id FROM jobs
                 WHERE status = 'running' AND lease_expires_at <= @now AND attempts < max_attempts AND ${TYPE_FILTER}
                 ORDER BY priority, lease_expires_at, id LIMIT 1)
     RETURNING *`,
  );
  const take = db.prepare(
    `UPDATE jobs SET status = 'running', lease_owner = @owner, lease_expires_at = @expires, attempts = attempts + 1,
       started_at = @now, updated_at = @now
     WHERE id = (SELECT id FROM jobs
                 WHERE status = 'queued' AND run_after <= @now AND ${TYPE_FILTER}
                 ORDER BY priority, run_after, id LIMIT 1)
     RETURNING *`,
  );
  // Newest first within the most urgent priority due: the priority fixed, the (status, priority, run_after, id)
  // index is read backwards, so this costs what `take` does.
  const takeNewest = db.prepare(
    `UPDATE jobs SET status = 'running', lease_owner = @owner, lease_expires_at = @expires, attempts = attempts + 1,
       started_at = @now, updated_at = @now
     WHERE id = (SELECT id FROM jobs
                 WHERE status = 'queued' AND run_after <= @now AND ${TYPE_FILTER}
                   AND priority = (SELECT priority FROM jobs WHERE status = 'queued' AND run_after <= @now
                                     AND ${TYPE_FILTER} ORDER BY priority LIMIT 1)
                 ORDER BY run_after DESC, id DESC LIMIT 1)
     RETURNING *`,
  );
  // A plain read first: an idle poll then never takes the write lock (nor waits on it behind another writer).
  const anyDue = db
    .prepare(
      `SELECT EXISTS (SELECT 1 FROM jobs WHERE status = 'queued' AND run_after <= @now AND ${TYPE_FILTER})
         OR EXISTS (SELECT 1 FROM jobs WHERE status = 'running' AND lease_expires_at <= @now AND ${TYPE_FILTER})`,
    )
    .pluck();
  type ClaimParams = { owner: string; types: string | null; now: string; expires: string };
  const claimTx = db.transaction((params: ClaimParams, newest: boolean) => {
    exhaust.run(params);
    return (reclaim.get(params) ?? (newest ? takeNewest : take).get(params)) as JobRow | undefined;
  });

  const owners = db
    .prepare(`SELECT DISTINCT lease_owner FROM jobs WHERE status = 'running' AND lease_owner IS NOT NULL`)
    .pluck();
  const expire = db.prepare(
    `UPDATE jobs SET lease_expires_at = @now, updated_at = @now
     WHERE status = 'running' AND lease_owner = @owner AND lease_expires_at > @now`,
  );
  const expireTx = db.transaction((list: readonly string[], now: string) =>
    list.reduce((n, owner) => n + expire.run({ owner, now }).changes, 0),
  );

  return {
    async runningLeaseOwners() {
      return owners.all() as string[];
    },
    async expireLeases(list, now = new Date()) {
      return list.length === 0 ? 0 : expireTx.immediate(list, now.toISOString());
    },
    async claim(owner, types, leaseMs, now = new Date(), order = 'oldest') {
      checkLease(leaseMs);
      if (types !== null && types.length === 0) return null;
      const params = {
        owner,
        types: types === null ? null : JSON.stringify(types),
        now: now.toISOString(),
        expires: iso(now.getTime() + leaseMs),
      };
      if (!anyDue.get(params)) return null;
      const row = claimTx.immediate(params, order === 'newest');
      return row ? toJob(row) : null;
    },
  };
}

/** What the worker holding a job's lease does with it; each is a no-op (false) once the lease is lost. */
export function jobLeases(db: Db): Pick<JobStore, 'heartbeat' | 'complete' | 'fail' | 'release' | 'setProgress'> {
  const OWNED = `id = @id AND status = 'running' AND lease_owner = @owner`;
  const heartbeatStmt = db.prepare(`UPDATE jobs SET lease_expires_at = @expires, updated_at = @now WHERE ${OWNED}`);
  const completeStmt = db.prepare(
    `UPDATE jobs SET status = 'succeeded', lease_expires_at = NULL, finished_at = @now, updated_at = @now
     WHERE ${OWNED}`,
  );
  const retryLater = db.prepare(
    `UPDATE jobs SET status = 'queued', run_after = @retryAt, last_error = @error,
       lease_owner = NULL, lease_expires_at = NULL, updated_at = @now
     WHERE ${OWNED}`,
  );
  const failForGood = db.prepare(
    `UPDATE jobs SET status = 'failed', last_error = @error, lease_expires_at = NULL, finished_at = @now, updated_at = @now
     WHERE ${OWNED}`,
  );
  const releaseStmt = db.prepare(
    `UPDATE jobs SET status = 'queued', run_after = @runAfter, attempts = max(attempts - 1, 0),
       lease_owner = NULL, lease_expires_at = NULL, updated_at = @now
     WHERE ${OWNED}`,
  );
  const progressStmt = db.prepare(`UPDATE jobs SET progress = @progress, updated_at = @now WHERE ${OWNED}`);
  const owned = (id: number, owner: string) => ({ id, owner, now: iso(Date.now()) });

  return {
    async heartbeat(id, owner, leaseMs) {
      checkLease(leaseMs);
      const params = owned(id, owner);
      return heartbeatStmt.run({ ...params, expires: iso(Date.parse(params.now) + leaseMs) }).changes === 1;
    },

    async complete(id, owner) {
      return completeStmt.run(owned(id, owner)).changes === 1;
    },

    async fail(id, owner, error, retryAt) {
      const params = { ...owned(id, owner), error: clip(error) };
      if (retryAt === null) return failForGood.run(params).changes === 1;
      return retryLater.run({ ...params, retryAt: checkIso(retryAt, 'retryAt') }).changes === 1;
    },

    async release(id, owner, runAfter) {
      const params = owned(id, owner);
      const at = runAfter ? checkIso(runAfter, 'runAfter') : params.now;
      return releaseStmt.run({ ...params, runAfter: at }).changes === 1;
    },

    async setProgress(id, owner, progress) {
      return progressStmt.run({ ...owned(id, owner), progress: JSON.stringify(progress ?? null) }).changes === 1;
    },
  };
}
