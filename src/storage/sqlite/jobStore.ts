import { invalid } from '../../platform/errors.js';
import {
  JOB_STATUSES,
  type JobCounts,
  type JobStats,
  type JobStatus,
  type Job,
  type JobStore,
  type NewJob,
} from '../../jobs/types.js';
import type { Db } from './database.js';
import { jobClaims, jobLeases } from './jobLeases.js';
import { sqliteJobPause } from './jobPause.js';
import { checkIso, checkNewJob, iso, toJob, UNFINISHED, type JobRow } from './jobRows.js';

const emptyCounts = (): JobCounts => ({ queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0 });

/** What the parts of the job store share, prepared once per store. */
interface JobCore {
  db: Db;
  fetch(id: number): JobRow | undefined;
  /** The unfinished job of a type with a dedupe key, if any. */
  unfinishedByKey(type: string, key: string): JobRow | undefined;
}

/**
 * The job queue on SQLite. Writes that read before they write (enqueue with a
 * key, claim, retry) run in IMMEDIATE transactions, which take the database's
 * write lock up front: two connections (two processes) claiming at once are
 * serialized by SQLite, so a job is handed to one of them only. The parts:
 * enqueueing, reports and admin here; claims and leases in jobLeases.ts.
 */
export function sqliteJobStore(db: Db): JobStore {
  const getRow = db.prepare(`SELECT * FROM jobs WHERE id = ?`);
  const unfinishedByKey = db.prepare(`SELECT * FROM jobs WHERE type = ? AND dedupe_key = ? AND ${UNFINISHED}`);
  const core: JobCore = {
    db,
    fetch: (id) => getRow.get(id) as JobRow | undefined,
    unfinishedByKey: (type, key) => unfinishedByKey.get(type, key) as JobRow | undefined,
  };
  const admin = jobAdmin(core);
  return {
    ...jobEnqueue(core),
    ...jobClaims(db),
    ...jobLeases(db),
    ...jobReports(db),
    ...admin,
    ...sqliteJobPause(db, admin.retry),
  };
}

/** Enqueueing: a job with a key already unfinished is hurried (never slowed) instead of queued twice. */
function jobEnqueue({ db, unfinishedByKey }: JobCore): Pick<JobStore, 'enqueue'> {
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
      const existing = unfinishedByKey(params.type, params.key);
      if (existing) return (hurry.get({ ...params, id: existing.id }) as JobRow | undefined) ?? existing;
    }
    return insert.get(params) as JobRow;
  });

  return {
    async enqueue<P>(job: NewJob<P>) {
      checkNewJob(job);
      return toJob(enqueueTx.immediate(job)) as Job<P>;
    },
  };
}

/** The listing and the counts. */
function jobReports(db: Db): Pick<JobStore, 'list' | 'stats' | 'recentRuns' | 'activeKeys'> {
  // list: one statement per filter combination, so each uses its index.
  const listStmts = new Map<string, { items: ReturnType<Db['prepare']>; total: ReturnType<Db['prepare']> }>();
  const listStatements = (byStatus: boolean, byType: boolean) => {
    const cacheKey = `${byStatus}${byType}`;
    let statements = listStmts.get(cacheKey);
    if (!statements) {
      const where = [
        byStatus ? 'status = @status' : '',
        byType ? 'type IN (SELECT value FROM json_each(@types))' : '',
      ].filter(Boolean);
      const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
      statements = {
        items: db.prepare(`SELECT * FROM jobs ${whereSql} ORDER BY id DESC LIMIT @limit OFFSET @offset`),
        total: db.prepare(`SELECT count(*) FROM jobs ${whereSql}`).pluck(),
      };
      listStmts.set(cacheKey, statements);
    }
    return statements;
  };

  // Newest succeeded first, by the (status, id) index: stops after `limit` of the type.
  const recentStmt = db.prepare(
    `SELECT started_at, finished_at FROM jobs WHERE status = 'succeeded' AND type = ?
       AND started_at IS NOT NULL AND finished_at IS NOT NULL ORDER BY id DESC LIMIT ?`,
  );
  const activeKeysStmt = db
    .prepare(
      `SELECT DISTINCT dedupe_key FROM jobs WHERE type IN (SELECT value FROM json_each(?))
         AND dedupe_key IN (SELECT value FROM json_each(?)) AND ${UNFINISHED}`,
    )
    .pluck();
  const countsStmt = db.prepare(`SELECT type, status, count(*) AS n FROM jobs GROUP BY type, status`);
  const delayedStmt = db.prepare(`SELECT count(*) FROM jobs WHERE status = 'queued' AND run_after > ?`).pluck();
  const oldestStmt = db.prepare(`SELECT min(created_at) FROM jobs WHERE status = 'queued'`).pluck();
  const statsTx = db.transaction((now: string): JobStats => {
    const stats: JobStats = { ...emptyCounts(), delayed: 0, oldestQueuedAt: null, byType: {} };
    for (const row of countsStmt.all() as Array<{ type: string; status: JobStatus; n: number }>) {
      stats[row.status] += row.n;
      (stats.byType[row.type] ??= emptyCounts())[row.status] += row.n;
    }
    stats.delayed = delayedStmt.get(now) as number;
    stats.oldestQueuedAt = (oldestStmt.get() as string | null) ?? null;
    return stats;
  });

  return {
    async list({ status, type, limit, offset = 0 }) {
      if (status !== undefined && !JOB_STATUSES.includes(status)) throw invalid(`unknown job status ${status}`);
      const statements = listStatements(status !== undefined, type !== undefined);
      const filter: Record<string, unknown> = {};
      if (status !== undefined) filter.status = status;
      if (type !== undefined) filter.types = JSON.stringify(typeof type === 'string' ? [type] : type);
      const items = (statements.items.all({ ...filter, limit, offset }) as JobRow[]).map(toJob);
      return { items, total: statements.total.get(filter) as number };
    },

    async stats(now = new Date()) {
      return statsTx(now.toISOString());
    },

    async recentRuns(type, limit) {
      const rows = recentStmt.all(type, limit) as Array<{ started_at: string; finished_at: string }>;
      return rows.map((r) => ({ startedAt: r.started_at, finishedAt: r.finished_at }));
    },

    async activeKeys(types, keys) {
      if (types.length === 0 || keys.length === 0) return new Set();
      return new Set(activeKeysStmt.all(JSON.stringify(types), JSON.stringify(keys)) as string[]);
    },
  };
}

/** One job read, retried, cancelled; finished jobs pruned. */
function jobAdmin({
  db,
  fetch,
  unfinishedByKey,
}: JobCore): Pick<JobStore, 'get' | 'retry' | 'cancel' | 'cancelByKey' | 'prune'> {
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
      const other = unfinishedByKey(row.type, row.dedupe_key);
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

  return {
    async get(id) {
      const row = fetch(id);
      return row ? toJob(row) : null;
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
