import type { Context } from 'koa';
import { authenticate } from '../domain/auth.js';
import type { Principal, Services } from '../domain/services.js';
import { DomainError } from '../errors.js';

export interface RequestGuards {
  authenticate(ctx: Context): Promise<Principal>;
  rateLimit(ctx: Context, principal: Principal): void;
}

/**
 * Per-key token bucket: `perMinute` requests refill evenly over a minute and a
 * key may burst up to a minute's worth. In memory: a restart forgets it, which
 * is fine for a limit that protects the server rather than bills anyone.
 */
export function createRateLimiter(perMinute: number, now: () => number = Date.now) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const ratePerMs = perMinute / 60_000;
  return (key: string): { ok: true } | { ok: false; retryAfterSeconds: number } => {
    const t = now();
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

export function createGuards(s: Services): RequestGuards {
  const limiter = createRateLimiter(s.config.rateLimitPerMinute);
  return {
    async authenticate(ctx) {
      const apiKey = ctx.get('x-api-key') || undefined;
      const principal = await authenticate(s, apiKey, ctx.get('authorization') || undefined);
      ctx.state.principal = principal;
      return principal;
    },
    rateLimit(ctx, principal) {
      const r = limiter(principal.keyId);
      if (!r.ok) {
        throw new DomainError('rate_limited', `rate limit of ${s.config.rateLimitPerMinute} requests per minute exceeded; retry in ${r.retryAfterSeconds} s`, {
          retryAfterSeconds: r.retryAfterSeconds,
        });
      }
    },
  };
}
