import { invalid } from '../../platform/errors.js';
import { isUniqueViolation, type PgDb, type PgRunner } from '../../platform/pgDb.js';
import {
  JOB_STATUSES,
  type JobCounts,
  type JobStats,
  type JobStatus,
  type Job,
  type JobStore,
  type NewJob,
} from '../../jobs/types.js';
import { checkIso, checkNewJob, iso, toJob, UNFINISHED, type JobRow } from '../sqlite/jobRows.js';
import { JOB_COLUMNS, pgJobClaims, pgJobLeases } from './jobClaim.js';
import { pgJobPause } from './jobPause.js';

const emptyCounts = (): JobCounts => ({ queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0 });

/** The unfinished job of a type with a dedupe key, if any. */
const unfinishedByKey = (q: PgRunner, type: string, key: string) =>
  q.one<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE type = $1 AND dedupe_key = $2 AND ${UNFINISHED}`, [type, key]);

/**
 * The job queue on PostgreSQL: the same semantics as the SQLite store (src/storage/sqlite/jobStore.ts), shared
 * by any number of processes. Claims take their row with FOR UPDATE SKIP LOCKED (./jobClaim.ts); the dedupe
 * key is the partial unique index jobs_dedupe, so two processes enqueueing the same key at once get one job.
 * An enqueue wakes idle runners in other processes through the NOTIFY of migration 020 (./jobWakeups.ts).
 */
export function pgJobStore(db: PgDb): JobStore {
  const admin = pgJobAdmin(db);
  return {
    ...pgJobEnqueue(db),
    ...pgJobClaims(db),
    ...pgJobLeases(db),
    ...pgJobReports(db),
    ...admin,
    ...pgJobPause(db, admin.retry),
  };
}

/** Enqueueing: a job with a key already unfinished is hurried (never slowed) instead of queued twice. */
function pgJobEnqueue(db: PgDb): Pick<JobStore, 'enqueue'> {
  // A conflict on jobs_dedupe hurries a queued job (the lower priority, the earlier run_after); a running one, or
  // one already as urgent, is left alone and returns nothing here: it is read after.
  const insert = `INSERT INTO jobs (type, payload, dedupe_key, priority, max_attempts, run_after, created_at, updated_at)
     VALUES ($1, $2::json, $3, $4, $5, $6, $7, $7)
     ON CONFLICT (type, dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running')
     DO UPDATE SET priority = least(jobs.priority, excluded.priority), run_after = least(jobs.run_after, excluded.run_after),
       updated_at = excluded.updated_at
     WHERE jobs.status = 'queued' AND (jobs.priority > excluded.priority OR jobs.run_after > excluded.run_after)
     RETURNING ${JOB_COLUMNS}`;
  return {
    async enqueue<P>(job: NewJob<P>): Promise<Job<P>> {
      checkNewJob(job);
      const now = iso(Date.now());
      const key = job.key ?? null;
      const params = [
        job.type,
        JSON.stringify(job.payload ?? null),
        key,
        job.priority ?? 0,
        job.maxAttempts ?? 5,
        job.runAfter ? checkIso(job.runAfter, 'runAfter') : now,
        now,
      ];
      // The unfinished job can finish between the conflict and the read: then the key is free, so go again.
      for (;;) {
        const row =
          (await db.one<JobRow>(insert, params)) ?? (key === null ? null : await unfinishedByKey(db, job.type, key));
        if (row) return toJob(row) as Job<P>;
      }
    },
  };
}

/** The listing and the counts. */
function pgJobReports(db: PgDb): Pick<JobStore, 'list' | 'stats' | 'recentRuns' | 'activeKeys'> {
  return {
    async list({ status, type, limit, offset = 0 }) {
      if (status !== undefined && !JOB_STATUSES.includes(status)) throw invalid(`unknown job status ${status}`);
      const where: string[] = [];
      const params: unknown[] = [];
      if (status !== undefined) where.push(`status = $${params.push(status)}`);
      if (type !== undefined) where.push(`type = ANY($${params.push(typeof type === 'string' ? [type] : [...type])})`);
      const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
      const [items, total] = await Promise.all([
        db.many<JobRow>(
          `SELECT ${JOB_COLUMNS} FROM jobs ${whereSql} ORDER BY id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
          [...params, limit, offset],
        ),
        db.one<{ n: number }>(`SELECT count(*) AS n FROM jobs ${whereSql}`, params),
      ]);
      return { items: items.map(toJob), total: total?.n ?? 0 };
    },

    async stats(now = new Date()) {
      // One snapshot for both reads, so the counts and the delayed ones agree.
      return db.tx(async (tx) => {
        await tx.query(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY`);
        const counts = await tx.many<{ type: string; status: JobStatus; n: number }>(
          `SELECT type, status, count(*) AS n FROM jobs GROUP BY type, status`,
        );
        const queued = await tx.one<{ delayed: number; oldest: string | null }>(
          `SELECT count(*) FILTER (WHERE run_after > $1) AS delayed, min(created_at) AS oldest
           FROM jobs WHERE status = 'queued'`,
          [now.toISOString()],
        );
        const stats: JobStats = { ...emptyCounts(), delayed: queued?.delayed ?? 0, oldestQueuedAt: null, byType: {} };
        stats.oldestQueuedAt = queued?.oldest ?? null;
        for (const row of counts) {
          stats[row.status] += row.n;
          (stats.byType[row.type] ??= emptyCounts())[row.status] += row.n;
        }
        return stats;
      });
    },

    async recentRuns(type, limit) {
      const rows = await db.many<{ started_at: string; finished_at: string }>(
        `SELECT started_at, finished_at FROM jobs WHERE status = 'succeeded' AND type = $1
           AND started_at IS NOT NULL AND finished_at IS NOT NULL ORDER BY id DESC LIMIT $2`,
        [type, limit],
      );
      return rows.map((r) => ({ startedAt: r.started_at, finishedAt: r.finished_at }));
    },

    async activeKeys(types, keys) {
      if (types.length === 0 || keys.length === 0) return new Set();
      const rows = await db.many<{ dedupe_key: string }>(
        `SELECT DISTINCT dedupe_key FROM jobs WHERE type = ANY($1::text[]) AND dedupe_key = ANY($2::text[])
           AND ${UNFINISHED}`,
        [[...types], [...keys]],
      );
      return new Set(rows.map((r) => r.dedupe_key));
    },
  };
}

/** One job read, retried, cancelled; finished jobs pruned. */
function pgJobAdmin(db: PgDb): Pick<JobStore, 'get' | 'retry' | 'cancel' | 'cancelByKey' | 'prune'> {
  const CANCEL = `SET status = 'cancelled', lease_expires_at = NULL, finished_at = $1, updated_at = $1`;
  return {
    async get(id) {
      const row = await db.one<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [id]);
      return row ? toJob(row) : null;
    },

    async retry(id) {
      const row = await db
        .tx(async (tx) => {
          const found = await tx.one<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1 FOR UPDATE`, [id]);
          if (!found || (found.status !== 'failed' && found.status !== 'cancelled')) return null;
          if (found.dedupe_key !== null) {
            const other = await unfinishedByKey(tx, found.type, found.dedupe_key);
            if (other) return other;
          }
          const now = iso(Date.now());
          return tx.one<JobRow>(
            `UPDATE jobs SET status = 'queued', attempts = 0, run_after = $2, lease_owner = NULL,
             lease_expires_at = NULL, progress = NULL, finished_at = NULL, updated_at = $2
           WHERE id = $1 AND status IN ('failed', 'cancelled') RETURNING ${JOB_COLUMNS}`,
            [id, now],
          );
        })
        .catch(async (err) => {
          // Another process enqueued the same key between the look and the update: that job is the answer.
          if (!isUniqueViolation(err)) throw err;
          const job = await db.one<JobRow>(`SELECT type, dedupe_key FROM jobs WHERE id = $1`, [id]);
          return job?.dedupe_key ? unfinishedByKey(db, job.type, job.dedupe_key) : null;
        });
      return row ? toJob(row) : null;
    },

    async cancel(id) {
      const result = await db.query(`UPDATE jobs ${CANCEL} WHERE id = $2 AND ${UNFINISHED}`, [iso(Date.now()), id]);
      return result.rowCount === 1;
    },

    async cancelByKey(type, key) {
      const result = await db.query(`UPDATE jobs ${CANCEL} WHERE type = $2 AND dedupe_key = $3 AND ${UNFINISHED}`, [
        iso(Date.now()),
        type,
        key,
      ]);
      return result.rowCount ?? 0;
    },

    async prune(olderThan) {
      const result = await db.query(
        `DELETE FROM jobs WHERE status IN ('succeeded', 'cancelled') AND finished_at < $1`,
        [checkIso(olderThan, 'olderThan')],
      );
      return result.rowCount ?? 0;
    },
  };
}
