/**
 * One deadline for the whole shutdown (issue #29): `docker stop` kills after 10 s, and the server used to take
 * up to 10 s for requests, then 10 s for jobs, then 5 s more. Requests and jobs now stop side by side under
 * SHUTDOWN_GRACE_SECONDS (default 7); a second is kept for closing the models and the database.
 */
export const CLOSE_RESERVE_MS = 1_000;

/** The milliseconds left before `deadline` (epoch ms), never negative. */
export const msLeft = (deadline: number): number => Math.max(0, deadline - Date.now());

/**
 * How long running jobs may finish on their own, then how long an aborted handler has to reach its safe point
 * (it is released, its attempt refunded): half each of what is left before the deadline, less the reserve.
 */
export function jobStopTimes(deadline: number): { graceMs: number; killMs: number } {
  const usable = Math.max(0, msLeft(deadline) - CLOSE_RESERVE_MS);
  const graceMs = Math.floor(usable / 2);
  return { graceMs, killMs: usable - graceMs };
}

/** When open HTTP connections are closed: the reserve before the deadline (they then have time to answer). */
export const requestCutoffMs = (deadline: number): number => Math.max(0, msLeft(deadline) - CLOSE_RESERVE_MS);
