import { DomainError } from './errors.js';

/**
 * Telling "the database is not there right now" from a bug: a refused or broken connection, or a server that is
 * shutting down, starting up or out of connections. Such errors are answered 503 with Retry-After (the error
 * middleware turns them into DomainError 'unavailable' in one place) instead of 500: the client's request was
 * not done, nothing it sent was acknowledged, and the same request later succeeds.
 */
// Not ECONNRESET nor EPIPE: a client that hangs up mid-request gives those too (a lost server connection reads
// "Connection terminated" in node-postgres).
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections; class 08 is below. */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
/** node-postgres's own messages for a connection it lost or could not get (they carry no code). */
const DRIVER_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/;

/** Seconds a client is asked to wait before trying again. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DomainError || typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)))
    return true;
  return typeof message === 'string' && DRIVER_MESSAGES.test(message);
}

/** The 503 a request gets while the database is away. */
export function databaseUnavailable(): DomainError {
  return new DomainError('unavailable', 'the database cannot be reached right now; try again shortly', {
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
  });
}

/**
 * PostgreSQL refuses the NUL character (U+0000) in text (SQLSTATE 22021, character_not_in_repertoire; 22P05 where
 * a conversion cannot express a character); SQLite stores it. Such text came from the client, so it is its error.
 */
export function isUnstorableText(err: unknown): boolean {
  if (err instanceof DomainError || typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === '22021' || code === '22P05';
}

/** The 400 a request gets for text PostgreSQL cannot store. */
export function unstorableText(): DomainError {
  return new DomainError('invalid_input', 'text may not contain the NUL character (U+0000) on this server');
}
