import type { Context, Next } from 'koa';
import { DomainError, type ErrorCode } from '../platform/errors.js';
import { insufficientStorage, isDiskFull } from '../platform/diskSpace.js';
import type { Logger } from '../platform/logger.js';
import { databaseUnavailable, isDatabaseUnavailable, isUnstorableText, unstorableText } from '../platform/pgErrors.js';

/** The one place where domain error codes become HTTP statuses. */
const STATUS: Record<ErrorCode, [number, string]> = {
  invalid_input: [400, 'Bad Request'],
  unauthenticated: [401, 'Unauthorized'],
  forbidden: [403, 'Forbidden'],
  not_found: [404, 'Not Found'],
  conflict: [409, 'Conflict'],
  too_large: [413, 'Payload Too Large'],
  unsupported_media: [415, 'Unsupported Media Type'],
  unprocessable: [422, 'Unprocessable Entity'],
  rate_limited: [429, 'Too Many Requests'],
  not_implemented: [501, 'Not Implemented'],
  unavailable: [503, 'Service Unavailable'],
  insufficient_storage: [507, 'Insufficient Storage'], // a full disk (platform/diskSpace.ts)
};

/** The `error` name a domain error code is answered with (e.g. inside a failed job's status). */
export const errorName = (code: string): string => STATUS[code as ErrorCode]?.[1] ?? 'Internal Server Error';

const NAMES: Record<number, string> = Object.fromEntries(Object.values(STATUS).map(([code, name]) => [code, name]));

/** Every error leaves as `{error, message}`; unexpected ones are logged and answered 500 without internals. */
export function errorMiddleware(logger: Logger, onDiskFull?: (err: unknown) => void) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { error: 'Not Found', message: `no route for ${ctx.method} ${ctx.path}` };
      } else if (ctx.status === 405 && ctx.body === undefined) {
        ctx.body = { error: 'Method Not Allowed', message: `${ctx.method} is not allowed on ${ctx.path}` };
      } else if (ctx.status === 501 && ctx.body === undefined) {
        methodNotImplemented(ctx);
      }
    } catch (caught) {
      let err = caught;
      // The database went away (restart, failover, network): 503 with Retry-After, not a 500.
      if (isDatabaseUnavailable(err)) {
        logger.warn('database unavailable', { err, requestId: ctx.state.requestId, path: ctx.path });
        err = databaseUnavailable();
      }
      if (isUnstorableText(err)) err = unstorableText();
      // ENOSPC or SQLITE_FULL under DATA_DIR (never PostgreSQL's or S3's own): 507, never a 500.
      if (!(err instanceof DomainError) && isDiskFull(err)) {
        logger.warn('disk full', { err, requestId: ctx.state.requestId, path: ctx.path });
        onDiskFull?.(err); // background jobs pause too, until space frees
        err = insufficientStorage();
      }
      if (err instanceof DomainError) {
        const [status, error] = STATUS[err.code];
        ctx.status = status;
        // `model`: the model a 503 waits for (not installed), so a client can say which and link to it.
        ctx.body = { error, message: err.message, ...(err.details.model ? { model: err.details.model } : {}) };
        if (err.details.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(err.details.retryAfterSeconds));
        return;
      }
      // Errors thrown by body parsers and http-errors carry a status (e.g. 413, 400 for bad JSON).
      const e = err as { status?: number; statusCode?: number; httpCode?: number; message?: string; expose?: boolean };
      const status = e.status ?? e.statusCode ?? e.httpCode;
      if (status && status >= 400 && status < 500) {
        ctx.status = status;
        ctx.body = { error: NAMES[status] ?? 'Bad Request', message: clientMessage(status, e.message) };
        return;
      }
      logger.error('unhandled error', { err, requestId: ctx.state.requestId, path: ctx.path });
      ctx.status = 500;
      ctx.body = {
        error: 'Internal Server Error',
        message:
          'something went wrong on the server; the request id in the x-request-id header identifies it in the logs',
      };
    }
  };
}

/**
 * A method the router does not implement at all (PROPFIND, TRACE, LOCK, …): on a path that has routes, 405 with
 * their `Allow`; on any other path, 501. Both in the JSON error shape (README, "API decisions").
 */
function methodNotImplemented(ctx: Context): void {
  if (ctx.response.get('Allow')) {
    ctx.status = 405;
    ctx.body = { error: 'Method Not Allowed', message: `${ctx.method} is not allowed on ${ctx.path}` };
    return;
  }
  ctx.remove('Allow');
  ctx.status = 501;
  ctx.body = { error: 'Not Implemented', message: `${ctx.method} is not a method this server implements` };
}

function clientMessage(status: number, message: string | undefined): string {
  if (status === 413) return 'request body is too large';
  if (/JSON|Unexpected token|in JSON/.test(message ?? '')) return 'request body is not valid JSON';
  return message ?? 'bad request';
}
