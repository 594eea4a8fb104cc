import type { Context, Next } from 'koa';
import { withRequestOrigin } from '../platform/requestOrigin.js';

/** A plain http(s) origin: a host name, IPv4 or [IPv6] address, an optional port; nothing else. */
const ORIGIN_RE = /^https?:\/\/(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

/**
 * Runs the rest of the request with its origin known (platform/requestOrigin.ts): koa's `ctx.protocol` and
 * `ctx.host`, which honour X-Forwarded-Proto and X-Forwarded-Host only when `app.proxy` is set (koa 3's
 * `ctx.origin` is the Origin header, not this). A Host that is not a plain host (or none at all) leaves the
 * origin unknown: URLs then use the fallback.
 */
export function requestOriginMiddleware() {
  return (ctx: Context, next: Next) => {
    const origin = `${ctx.protocol}://${ctx.host}`;
    return ORIGIN_RE.test(origin) ? withRequestOrigin(origin.toLowerCase(), next) : next();
  };
}
