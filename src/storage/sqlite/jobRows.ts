import { invalid } from '../../platform/errors.js';
import type { Job, JobStatus, NewJob } from '../../jobs/types.js';

/** A jobs row as SQLite returns it. */
export interface JobRow {
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

export const toJob = (row: JobRow): Job => ({
  id: row.id,
  type: row.type,
  payload: parse(row.payload),
  key: row.dedupe_key,
  priority: row.priority,
  status: row.status,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  runAfter: row.run_after,
  leaseOwner: row.lease_owner,
  leaseExpiresAt: row.lease_expires_at,
  lastError: row.last_error,
  progress: parse(row.progress),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
});

export const iso = (ms: number) => new Date(ms).toISOString();

export function checkIso(value: string, field: string): string {
  if (Number.isNaN(Date.parse(value))) throw invalid(`${field} must be an ISO 8601 date-time`);
  return new Date(value).toISOString();
}

/** Matches any type when @types is NULL, else the types in the JSON array @types. */
export const TYPE_FILTER = `(@types IS NULL OR type IN (SELECT value FROM json_each(@types)))`;
export const UNFINISHED = `status IN ('queued', 'running')`;

/** Last errors are for people; a stack trace or a huge message stays in the log. */
const MAX_ERROR_CHARS = 2000;
export const clip = (error: string) =>
  error.length > MAX_ERROR_CHARS ? `${error.slice(0, MAX_ERROR_CHARS - 1)}…` : error;

export const checkLease = (leaseMs: number) => {
  if (!(Number.isFinite(leaseMs) && leaseMs > 0)) throw invalid('leaseMs must be a positive number');
};

/** The checks every engine makes of a job before enqueueing it (invalid_input). */
export function checkNewJob(job: NewJob<unknown>): void {
  if (typeof job.type !== 'string' || job.type === '') throw invalid('job type is required');
  if (job.priority !== undefined && !Number.isSafeInteger(job.priority)) throw invalid('priority must be an integer');
  if (job.maxAttempts !== undefined && !(Number.isSafeInteger(job.maxAttempts) && job.maxAttempts >= 1)) {
    throw invalid('maxAttempts must be an integer ≥ 1');
  }
}
