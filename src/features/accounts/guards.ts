import type { Context } from 'koa';
import { authenticate, hashKey } from './auth.js';
import { authenticateSession, checkCsrf } from './sessions.js';
import type { Principal, Services } from '../kernel/services.js';
import { DomainError } from '../../platform/errors.js';
import { beginWrite, endWrite } from './writeGate.js';
import type { RequestGuards } from '../../http/route.js';
import { clearSessionCookie, CSRF_HEADER, readSessionCookie } from '../../http/sessionCookie.js';

/**
 * How long a checked API key's caller is reused without reading the key and
 * the membership again (two statements a request, a cost worth sparing on
 * every read; figures: docs/measurements/features.md). Keys and
 * memberships change only through write requests, and every write this
 * process handles forgets all remembered keys (a revocation here holds for
 * the very next request); a change made by another process on the same
 * database holds within this time. Bearer tokens, and every write request's
 * key, are always checked afresh.
 */
export const KEY_MEMORY_MS = 2_000;
/** Remembered keys at most (all are forgotten when full; a real deployment has a handful). */
const KEY_MEMORY_MAX = 1_000;

/**
 * Per-key token bucket: `perMinute` requests refill evenly over a minute and a
 * key may burst up to a minute's worth. In memory: a restart forgets it, which
 * is fine for a limit that protects the server rather than bills anyone.
 */
export function createRateLimiter(perMinute: number, now: () => number = Date.now, maxKeys = 10_000) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const ratePerMs = perMinute / 60_000;
  return (key: string): { ok: true } | { ok: false; retryAfterSeconds: number } => {
    const t = now();
    if (buckets.size >= maxKeys && !buckets.has(key)) {
      // Client addresses are many (and a client may name its own): bound the memory. A bucket untouched for
      // a minute is full again, the same as none; if every bucket is fresh, start over.
      for (const [k, old] of buckets) if (t - old.at >= 60_000) buckets.delete(k);
      if (buckets.size >= maxKeys) buckets.clear();
    }
    const b = buckets.get(key) ?? { tokens: perMinute, at: t };
    b.tokens = Math.min(perMinute, b.tokens + (t - b.at) * ratePerMs);
    b.at = t;
    buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / ratePerMs / 1000)) };
  };
}

/**
 * The client's address for the per-address limit of the public sign-in routes and a session's record: the
 * nearest proxy's word (the last X-Forwarded-For entry, as koa's `proxy` setting trusts forwarded headers),
 * else the socket's peer. Not the first entry: a client writes that one itself.
 */
export function clientAddress(ctx: Pick<Context, 'get' | 'req'>): string | null {
  const forwarded = ctx.get('x-forwarded-for').split(',').pop()?.trim();
  return (forwarded || ctx.req?.socket?.remoteAddress) ?? null;
}

const rateLimited = (perMinute: number, retryAfterSeconds: number, what: string) =>
  new DomainError(
    'rate_limited',
    `rate limit of ${perMinute} ${what} per minute exceeded; retry in ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );

/**
 * A request without x-api-key or Authorization but with a session cookie: a signed-in browser. Its writes
 * must carry the session's CSRF token. A dead session's cookie is cleared in the 401.
 */
async function sessionCaller(deps: Pick<Services, 'storage'>, ctx: Context, secret: string): Promise<Principal> {
  try {
    const { principal, session } = await authenticateSession(deps, secret);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') checkCsrf(session, ctx.get(CSRF_HEADER) || undefined);
    return principal;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'unauthenticated') clearSessionCookie(ctx);
    throw err;
  }
}

export function createGuards(
  deps: Pick<Services, 'config' | 'storage' | 'tokenKey'>,
  now: () => number = Date.now,
): RequestGuards {
  const limiter = createRateLimiter(deps.config.rateLimitPerMinute);
  const anonymousLimiter = createRateLimiter(deps.config.signInRateLimitPerMinute);
  const visitorLimiter = createRateLimiter(deps.config.rateLimitPerMinute);
  // SHA-256 of the credential header → the caller it named; never the secret itself.
  const remembered = new Map<string, { principal: Principal; until: number }>();
  async function identify(ctx: Context): Promise<Principal> {
    const apiKey = ctx.get('x-api-key') || undefined;
    const authorization = ctx.get('authorization') || undefined;
    // A key or token wins over a cookie: programs behave the same whatever cookies their client keeps.
    const sessionSecret = apiKey || authorization ? undefined : readSessionCookie(ctx);
    if (sessionSecret) return (ctx.state.principal = await sessionCaller(deps, ctx, sessionSecret));
    // An API key (x-api-key, or a Bearer credential that is not a three-part token) on a read; writes always check afresh.
    const reads = ctx.method === 'GET' || ctx.method === 'HEAD';
    const keyHeader = !reads
      ? undefined
      : (apiKey ?? (authorization && /^Bearer\s+[^.\s]+$/i.test(authorization) ? authorization : undefined));
    const memoryKey =
      keyHeader === undefined
        ? undefined
        : hashKey(`${apiKey === undefined ? 'authorization' : 'x-api-key'}\n${keyHeader}`);
    const hit = memoryKey === undefined ? undefined : remembered.get(memoryKey);
    let principal: Principal;
    if (hit && hit.until > now()) {
      principal = { ...hit.principal };
    } else {
      principal = await authenticate(deps, apiKey, authorization);
      if (memoryKey !== undefined) {
        if (remembered.size >= KEY_MEMORY_MAX) remembered.clear();
        remembered.set(memoryKey, { principal: { ...principal }, until: now() + KEY_MEMORY_MS });
      }
    }
    ctx.state.principal = principal;
    return principal;
  }
  return {
    async authenticate(ctx) {
      // A write registers before it authenticates: a role change waits for it (writeGate.ts).
      const write = ctx.method === 'GET' || ctx.method === 'HEAD' ? null : beginWrite(ctx);
      const principal = await identify(ctx);
      write?.identify(principal.userId);
      return principal;
    },
    settle: endWrite,
    forgetKeys() {
      remembered.clear();
    },
    rateLimit(_ctx, principal) {
      const r = limiter(principal.keyId ?? `session:${principal.sessionId}`);
      if (!r.ok) throw rateLimited(deps.config.rateLimitPerMinute, r.retryAfterSeconds, 'requests');
    },
    rateLimitAnonymous(ctx) {
      const r = anonymousLimiter(`address:${clientAddress(ctx) ?? 'unknown'}`);
      if (!r.ok) throw rateLimited(deps.config.signInRateLimitPerMinute, r.retryAfterSeconds, 'sign-in requests');
    },
    rateLimitVisitor(ctx) {
      const r = visitorLimiter(`address:${clientAddress(ctx) ?? 'unknown'}`);
      if (!r.ok) throw rateLimited(deps.config.rateLimitPerMinute, r.retryAfterSeconds, 'requests');
    },
  };
}
