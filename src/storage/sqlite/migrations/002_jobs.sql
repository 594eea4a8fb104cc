-- The durable job queue (src/jobs): one table, no broker. A worker claims a job
-- with one UPDATE … RETURNING inside a write transaction, which sets a lease
-- (owner + expiry); a job whose lease expired (its worker crashed or stalled) is
-- claimable again. Timestamps are ISO 8601 UTC strings with milliseconds.

CREATE TABLE jobs (
  -- AUTOINCREMENT: ids are never reused after prune, so a stale id can't name a new job.
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  type             TEXT NOT NULL,
  payload          TEXT NOT NULL DEFAULT '{}',
  -- Dedupe key: at most one unfinished (queued or running) job per (type, key).
  dedupe_key       TEXT,
  -- Lower runs first: fresh uploads 0, re-indexing 10.
  priority         INTEGER NOT NULL DEFAULT 0,
  status           TEXT NOT NULL DEFAULT 'queued'
                   CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  max_attempts     INTEGER NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
  -- Not claimed before this moment (first run or retry backoff).
  run_after        TEXT NOT NULL,
  lease_owner      TEXT,
  lease_expires_at TEXT,
  last_error       TEXT,
  progress         TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  started_at       TEXT,
  finished_at      TEXT
);

-- Claim: status = 'queued' AND run_after <= now ORDER BY priority, run_after, id.
CREATE INDEX jobs_claim ON jobs(status, priority, run_after, id);
-- Reclaim: running jobs whose lease has expired.
CREATE INDEX jobs_leases ON jobs(lease_expires_at) WHERE status = 'running';
-- Dedupe among unfinished jobs only; finished ones keep their key as history.
CREATE UNIQUE INDEX jobs_dedupe ON jobs(type, dedupe_key)
  WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running');
-- Listing by status, newest (highest id) first; stats and prune. Listing all
-- statuses walks the primary key backwards.
CREATE INDEX jobs_by_status ON jobs(status, id);
