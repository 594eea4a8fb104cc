import { invalid } from '../../platform/errors.js';
import {
  JOB_STATUSES,
  type Job,
  type JobCounts,
  type JobStats,
  type JobStatus,
  type JobStore,
  type NewJob,
} from '../../jobs/types.js';
import type { Db } from './database.js';

/** A jobs row as SQLite returns it. */
interface JobRow {
  id: number;
  type: string;
  payload: string;
  dedupe_key: string | null;
  priority: number;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_after: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_error: string | null;
  progress: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

const parse = (text: string | null): unknown => {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

const toJob = (r: JobRow): Job => ({
  id: r.id,
  type: r.type,
  payload: parse(r.payload),
  key: r.dedupe_key,
  priority: r.priority,
  status: r.status,
  attempts: r.attempts,
  maxAttempts: r.max_attempts,
  runAfter: r.run_after,
  leaseOwner: r.lease_owner,
  leaseExpiresAt: r.lease_expires_at,
  lastError: r.last_error,
  progress: parse(r.progress),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

const iso = (ms: number) => new Date(ms).toISOString();
/** Last errors are for people; a stack trace or a huge message stays in the log. */
const MAX_ERROR_CHARS = 2000;
const clip = (s: string) => (s.length > MAX_ERROR_CHARS ? `${s.slice(0, MAX_ERROR_CHARS - 1)}…` : s);

function checkIso(value: string, field: string): string {
  if (Number.isNaN(Date.parse(value))) throw invalid(`${field} must be an ISO 8601 date-time`);
  return new Date(value).toISOString();
}

const emptyCounts = (): JobCounts => ({ queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0 });

/** Matches any type when @types is NULL, else the types in the JSON array @types. */
const TYPE_FILTER = `(@types IS NULL OR type IN (SELECT value FROM json_each(@types)))`;
const UNFINISHED = `status IN ('queued', 'running')`;

/**
 * The job queue on SQLite. Writes that read before they write (enqueue with a
 * key, claim, retry) run in IMMEDIATE transactions, which take the database's
 * write lock up front: two connections (two processes) claiming at once are
 * serialized by SQLite, so a job is handed to one of them only.
 */
export function sqliteJobStore(db: Db): JobStore {
  const getRow = db.prepare(`SELECT * FROM jobs WHERE id = ?`);
  const fetch = (id: number) => getRow.get(id) as JobRow | undefined;
  const unfinishedByKey = db.prepare(`SELECT * FROM jobs WHERE type = ? AND dedupe_key = ? AND ${UNFINISHED}`);

  const insert = db.prepare(
    `INSERT INTO jobs (type, payload, dedupe_key, priority, max_attempts, run_after, created_at, updated_at)
     VALUES (@type, @payload, @key, @priority, @maxAttempts, @runAfter, @now, @now)
     RETURNING *`,
  );
  const hurry = db.prepare(
    `UPDATE jobs SET priority = min(priority, @priority), run_after = min(run_after, @runAfter), updated_at = @now
     WHERE id = @id AND status = 'queued' AND (priority > @priority OR run_after > @runAfter)
     RETURNING *`,
  );

  const enqueueTx = db.transaction((job: NewJob<unknown>): JobRow => {
    const now = iso(Date.now());
    const params = {
      type: job.type,
      payload: JSON.stringify(job.payload ?? null),
      key: job.key ?? null,
      priority: job.priority ?? 0,
      maxAttempts: job.maxAttempts ?? 5,
      runAfter: job.runAfter ? checkIso(job.runAfter, 'runAfter') : now,
      now,
    };
    if (params.key !== null) {
      const existing = unfinishedByKey.get(params.type, params.key) as JobRow | undefined;
      if (existing) return (hurry.get({ ...params, id: existing.id }) as JobRow | undefined) ?? existing;
    }
    return insert.get(params) as JobRow;
  });

  // Claim, in one IMMEDIATE transaction: first give up on expired jobs with no
  // attempts left, then reclaim an expired lease, else take the next queued job.
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
  // A plain read first: an idle poll then never takes the write lock (nor waits on it behind another writer).
  const anyDue = db
    .prepare(
      `SELECT EXISTS (SELECT 1 FROM jobs WHERE status = 'queued' AND run_after <= @now AND ${TYPE_FILTER})
         OR EXISTS (SELECT 1 FROM jobs WHERE status = 'running' AND lease_expires_at <= @now AND ${TYPE_FILTER})`,
    )
    .pluck();
  const claimTx = db.transaction((params: { owner: string; types: string | null; now: string; expires: string }) => {
    exhaust.run(params);
    return (reclaim.get(params) ?? take.get(params)) as JobRow | undefined;
  });

  const OWNED = `id = @id AND status = 'running' AND lease_owner = @owner`;
  const heartbeatStmt = db.prepare(`UPDATE jobs SET lease_expires_at = @expires, updated_at = @now WHERE ${OWNED}`);
  const completeStmt = db.prepare(
    `UPDATE jobs SET status = 'succeeded', lease_expires_at = NULL, finished_at = @now, updated_at = @now WHERE ${OWNED}`,
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

  // list: one statement per filter combination, so each uses its index.
  const listStmts = new Map<string, { items: ReturnType<Db['prepare']>; total: ReturnType<Db['prepare']> }>();
  const listStatements = (byStatus: boolean, byType: boolean) => {
    const k = `${byStatus}${byType}`;
    let s = listStmts.get(k);
    if (!s) {
      const where = [byStatus ? 'status = @status' : '', byType ? 'type = @type' : ''].filter(Boolean);
      const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
      s = {
        items: db.prepare(`SELECT * FROM jobs ${w} ORDER BY id DESC LIMIT @limit OFFSET @offset`),
        total: db.prepare(`SELECT count(*) FROM jobs ${w}`).pluck(),
      };
      listStmts.set(k, s);
    }
    return s;
  };

  const countsStmt = db.prepare(`SELECT type, status, count(*) AS n FROM jobs GROUP BY type, status`);
  const delayedStmt = db.prepare(`SELECT count(*) FROM jobs WHERE status = 'queued' AND run_after > ?`).pluck();
  const oldestStmt = db.prepare(`SELECT min(created_at) FROM jobs WHERE status = 'queued'`).pluck();
  const statsTx = db.transaction((now: string): JobStats => {
    const stats: JobStats = { ...emptyCounts(), delayed: 0, oldestQueuedAt: null, byType: {} };
    for (const r of countsStmt.all() as Array<{ type: string; status: JobStatus; n: number }>) {
      stats[r.status] += r.n;
      (stats.byType[r.type] ??= emptyCounts())[r.status] += r.n;
    }
    stats.delayed = delayedStmt.get(now) as number;
    stats.oldestQueuedAt = (oldestStmt.get() as string | null) ?? null;
    return stats;
  });

  const requeue = db.prepare(
    `UPDATE jobs SET status = 'queued', attempts = 0, run_after = @now, lease_owner = NULL, lease_expires_at = NULL,
       progress = NULL, finished_at = NULL, updated_at = @now
     WHERE id = @id AND status IN ('failed', 'cancelled')
     RETURNING *`,
  );
  const retryTx = db.transaction((id: number): JobRow | undefined => {
    const row = fetch(id);
    if (!row || (row.status !== 'failed' && row.status !== 'cancelled')) return undefined;
    if (row.dedupe_key !== null) {
      const other = unfinishedByKey.get(row.type, row.dedupe_key) as JobRow | undefined;
      if (other) return other;
    }
    return requeue.get({ id, now: iso(Date.now()) }) as JobRow | undefined;
  });

  const CANCEL = `SET status = 'cancelled', lease_expires_at = NULL, finished_at = @now, updated_at = @now`;
  const cancelStmt = db.prepare(`UPDATE jobs ${CANCEL} WHERE id = @id AND ${UNFINISHED}`);
  const cancelByKeyStmt = db.prepare(
    `UPDATE jobs ${CANCEL} WHERE type = @type AND dedupe_key = @key AND ${UNFINISHED}`,
  );
  const pruneStmt = db.prepare(`DELETE FROM jobs WHERE status IN ('succeeded', 'cancelled') AND finished_at < ?`);

  const owned = (id: number, owner: string) => ({ id, owner, now: iso(Date.now()) });
  const checkLease = (leaseMs: number) => {
    if (!(Number.isFinite(leaseMs) && leaseMs > 0)) throw invalid('leaseMs must be a positive number');
  };

  return {
    async enqueue<P>(job: NewJob<P>) {
      if (typeof job.type !== 'string' || job.type === '') throw invalid('job type is required');
      if (job.priority !== undefined && !Number.isSafeInteger(job.priority))
        throw invalid('priority must be an integer');
      if (job.maxAttempts !== undefined && !(Number.isSafeInteger(job.maxAttempts) && job.maxAttempts >= 1)) {
        throw invalid('maxAttempts must be an integer ≥ 1');
      }
      return toJob(enqueueTx.immediate(job)) as Job<P>;
    },

    async claim(owner, types, leaseMs, now = new Date()) {
      checkLease(leaseMs);
      if (types !== null && types.length === 0) return null;
      const params = {
        owner,
        types: types === null ? null : JSON.stringify(types),
        now: now.toISOString(),
        expires: iso(now.getTime() + leaseMs),
      };
      if (!anyDue.get(params)) return null;
      const row = claimTx.immediate(params);
      return row ? toJob(row) : null;
    },

    async heartbeat(id, owner, leaseMs) {
      checkLease(leaseMs);
      const p = owned(id, owner);
      return heartbeatStmt.run({ ...p, expires: iso(Date.parse(p.now) + leaseMs) }).changes === 1;
    },

    async complete(id, owner) {
      return completeStmt.run(owned(id, owner)).changes === 1;
    },

    async fail(id, owner, error, retryAt) {
      const p = { ...owned(id, owner), error: clip(error) };
      if (retryAt === null) return failForGood.run(p).changes === 1;
      return retryLater.run({ ...p, retryAt: checkIso(retryAt, 'retryAt') }).changes === 1;
    },

    async release(id, owner, runAfter) {
      const p = owned(id, owner);
      return releaseStmt.run({ ...p, runAfter: runAfter ? checkIso(runAfter, 'runAfter') : p.now }).changes === 1;
    },

    async setProgress(id, owner, progress) {
      return progressStmt.run({ ...owned(id, owner), progress: JSON.stringify(progress ?? null) }).changes === 1;
    },

    async get(id) {
      const row = fetch(id);
      return row ? toJob(row) : null;
    },

    async list({ status, type, limit, offset = 0 }) {
      if (status !== undefined && !JOB_STATUSES.includes(status)) throw invalid(`unknown job status ${status}`);
      const s = listStatements(status !== undefined, type !== undefined);
      const filter: Record<string, unknown> = {};
      if (status !== undefined) filter.status = status;
      if (type !== undefined) filter.type = type;
      const items = (s.items.all({ ...filter, limit, offset }) as JobRow[]).map(toJob);
      return { items, total: s.total.get(filter) as number };
    },

    async stats(now = new Date()) {
      return statsTx(now.toISOString());
    },

    async retry(id) {
      const row = retryTx.immediate(id);
      return row ? toJob(row) : null;
    },

    async cancel(id) {
      return cancelStmt.run({ id, now: iso(Date.now()) }).changes === 1;
    },

    async cancelByKey(type, key) {
      return cancelByKeyStmt.run({ type, key, now: iso(Date.now()) }).changes;
    },

    async prune(olderThan) {
      return pruneStmt.run(checkIso(olderThan, 'olderThan')).changes;
    },
  };
}
