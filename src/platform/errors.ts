/**
 * Domain errors carry a code, never an HTTP status: the one error middleware
 * (src/http/errorMiddleware.ts) maps codes to statuses and response bodies.
 */
export type ErrorCode =
  | 'invalid_input'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unsupported_media'
  | 'unprocessable'
  | 'rate_limited'
  | 'not_implemented'
  | 'unavailable'
  | 'insufficient_storage';

/** What an error may tell beyond its message: a wait (429), the missing model (503, answered as `model`). */
export interface ErrorDetails {
  retryAfterSeconds?: number;
  model?: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra response details, e.g. `retryAfterSeconds` for rate limiting. */
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** An error as it crosses a worker thread's message port (structured clone keeps no class). */
export interface SerializedError {
  code?: string;
  message: string;
  details?: ErrorDetails;
}

export function serializeError(err: unknown): SerializedError {
  if (err instanceof DomainError) return { code: err.code, message: err.message, details: err.details };
  return { message: err instanceof Error ? err.message : String(err) };
}

/** The error back on this side: a DomainError as it was, anything else as `otherwise` makes it. */
export function deserializeError(e: SerializedError, otherwise: (message: string) => Error): Error {
  return e.code ? new DomainError(e.code as ErrorCode, e.message, e.details ?? {}) : otherwise(e.message);
}

export const invalid = (message: string) => new DomainError('invalid_input', message);
export const notFound = (message: string) => new DomainError('not_found', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const unprocessable = (message: string) => new DomainError('unprocessable', message);
