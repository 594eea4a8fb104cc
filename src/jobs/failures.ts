/** How a job's failure is judged: aborts, permanent failures, and the backoff before a retry. */
import { DomainError } from '../platform/errors.js';

export interface BackoffOptions {
  /** Delay before the 2nd attempt; doubles per attempt. Default 2 s. */
  baseMs?: number;
  /** Cap. Default 10 min. */
  maxMs?: number;
  /** ± this fraction of random spread, 0..1. Default 0.2. */
  jitter?: number;
}

/** Why a handler's signal was aborted. */
export class JobAbort extends Error {
  constructor(
    readonly why: 'lease_lost' | 'shutdown' | 'timeout',
    message: string,
  ) {
    super(message);
    this.name = 'JobAbort';
  }
}

/** Throw (or wrap a cause in) this to fail a job at once, without retries. */
export class PermanentJobError extends Error {
  readonly permanent = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

const PERMANENT_CODES = new Set(['unprocessable', 'invalid_input', 'unsupported_media']);

/**
 * Errors that retrying can't fix: anything with `permanent === true`, and
 * DomainErrors coded unprocessable, invalid_input or unsupported_media.
 */
export function isPermanent(err: unknown): boolean {
  if (err instanceof DomainError) return PERMANENT_CODES.has(err.code);
  return typeof err === 'object' && err !== null && (err as { permanent?: unknown }).permanent === true;
}

/** Exponential: baseMs × 2^(attempt − 1), capped at maxMs, spread by ± jitter. */
export function backoffDelay(attempt: number, opts: BackoffOptions = {}, random: () => number = Math.random): number {
  const base = opts.baseMs ?? 2_000;
  const max = opts.maxMs ?? 600_000;
  const jitter = Math.min(1, Math.max(0, opts.jitter ?? 0.2));
  const raw = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  return Math.max(0, Math.round(Math.min(max, raw * (1 - jitter + 2 * jitter * random()))));
}
