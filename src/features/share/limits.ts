/**
 * Password attempts on share links: failures counted per link and per client address over a window, in
 * memory (a restart forgets them; with several API processes each counts its own). Past the limit the link
 * (or the address) is locked until its oldest counted failure leaves the window: even the right password
 * is refused meanwhile, so guessing cannot go on at scrypt's pace.
 */
export const SHARE_ATTEMPT_WINDOW_MS = 15 * 60_000;
/** Failed passwords per link in the window before it locks. */
export const SHARE_FAILURES_PER_LINK = 10;
/** Failed passwords (or unknown tokens) per client address in the window before it is locked out. */
export const SHARE_FAILURES_PER_ADDRESS = 20;
const MAX_KEYS = 10_000;

export interface AttemptLimiter {
  /** Seconds until `key` may try again; 0 when it may now. */
  lockedFor(key: string, limit: number, now?: number): number;
  /** Records a failure; true when this one reached the limit (the moment a lockout starts). */
  fail(key: string, limit: number, now?: number): boolean;
  clear(key: string): void;
}

export function createAttemptLimiter(windowMs = SHARE_ATTEMPT_WINDOW_MS): AttemptLimiter {
  const failures = new Map<string, number[]>();
  const recent = (key: string, now: number) => {
    const list = (failures.get(key) ?? []).filter((t) => t > now - windowMs);
    if (list.length) failures.set(key, list);
    else failures.delete(key);
    return list;
  };
  return {
    lockedFor(key, limit, now = Date.now()) {
      const list = recent(key, now);
      return list.length < limit ? 0 : Math.max(1, Math.ceil((list[list.length - limit] + windowMs - now) / 1000));
    },
    fail(key, limit, now = Date.now()) {
      if (failures.size >= MAX_KEYS && !failures.has(key)) failures.clear();
      const list = recent(key, now);
      list.push(now);
      failures.set(key, list);
      return list.length === limit;
    },
    clear: (key) => void failures.delete(key),
  };
}
