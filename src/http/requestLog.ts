import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../platform/logger.js';

/**
 * Gives every request an id (the client's `x-request-id` when it is sane),
 * returns it in the `x-request-id` header and logs one line when the request ends.
 */
export function requestLog(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const given = ctx.get('x-request-id');
    const requestId = /^[\w.-]{8,64}$/.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('x-request-id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info('request', {
        requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Math.round(ms * 10) / 10,
        keyId: ctx.state.principal?.keyId ?? undefined,
        sessionId: ctx.state.principal?.sessionId ?? undefined,
      });
    }
  };
}
