import type { SessionStore } from '../../storage/storage.js';

/**
 * Password attempts on share links: failures counted per link and per client address over a window, kept in the
 * database's failure log beside the sign-in lockout's (SessionStore.recordFailure), so a restart does not reset
 * them and several API processes count together. Their keys (`share-link <id>`, `share-address <ip>`) hold a
 * space, which no normalised email (the sign-in lockout's keys) can. Past the limit the link (or the address)
 * is locked until its oldest counted failure leaves the window: even the right password is refused meanwhile,
 * so guessing cannot go on at scrypt's pace.
 */
export const SHARE_ATTEMPT_WINDOW_MS = 15 * 60_000;
/** Failed passwords per link in the window before it locks. */
export const SHARE_FAILURES_PER_LINK = 10;
/** Failed passwords (or unknown tokens) per client address in the window before it is locked out. */
export const SHARE_FAILURES_PER_ADDRESS = 20;

export const linkAttemptKey = (linkId: string) => `share-link ${linkId}`;
export const addressAttemptKey = (client: string | null) => `share-address ${client ?? 'unknown'}`;

export interface AttemptLimiter {
  /** Seconds until `key` may try again; 0 when it may now. */
  lockedFor(key: string, limit: number, now?: number): Promise<number>;
  /** Records a failure; true when this one reached the limit (the moment a lockout starts). */
  fail(key: string, limit: number, now?: number): Promise<boolean>;
}

export function storedAttemptLimiter(
  log: Pick<SessionStore, 'recordFailure' | 'failuresSince'>,
  windowMs = SHARE_ATTEMPT_WINDOW_MS,
): AttemptLimiter {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    async lockedFor(key, limit, now = Date.now()) {
      const list = await log.failuresSince(key, iso(now - windowMs));
      if (list.length < limit) return 0;
      return Math.max(1, Math.ceil((Date.parse(list[list.length - limit]) + windowMs - now) / 1000));
    },
    async fail(key, limit, now = Date.now()) {
      await log.recordFailure(key, iso(now), iso(now - windowMs));
      return (await log.failuresSince(key, iso(now - windowMs))).length === limit;
    },
  };
}
