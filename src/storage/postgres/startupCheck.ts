import type { PgDb } from '../../platform/pgDb.js';
import { StartupError } from '../../platform/startupError.js';
import { MigrationError } from './migrate.js';

/** Where DATABASE_URL points, without its password, for messages. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/** The fix for a failed first connection, by the error's code (SQLSTATE or Node's). */
function connectFix(code: string | undefined, where: string): string {
  switch (code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
      return `cannot reach PostgreSQL at ${where}: start the server or correct the host and port in DATABASE_URL`;
    case '28P01':
    case '28000':
      return `PostgreSQL at ${where} refused the credentials: correct the user and password in DATABASE_URL`;
    case '3D000':
      return `the database in DATABASE_URL (${where}) does not exist: create it (createdb) or correct the name`;
    default:
      return `cannot use PostgreSQL at ${where}: check DATABASE_URL`;
  }
}

/**
 * Checks, before any migration, that the server answers and has what the schema needs (ltree always;
 * pgvector unless vector search is off), so that a wrong setting stops the start with one line naming the
 * fix instead of a stack trace or a half-migrated schema.
 */
export async function checkServer(db: PgDb, url: string, vectorSearch: boolean): Promise<void> {
  const where = describeUrl(url);
  let available: Set<string>;
  try {
    const rows = await db.many<{ name: string }>(
      `SELECT name FROM pg_available_extensions WHERE name IN ('ltree', 'vector')`,
    );
    available = new Set(rows.map((r) => r.name));
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new StartupError(`${connectFix(code, where)} (${(err as Error).message})`);
  }
  if (!available.has('ltree'))
    throw new StartupError(
      `PostgreSQL at ${where} lacks the ltree extension: install postgresql-contrib on the server`,
    );
  if (vectorSearch && !available.has('vector'))
    throw new StartupError(
      `PostgreSQL at ${where} lacks the vector extension: install pgvector on the server, or set VECTOR_SEARCH=off ` +
        `(search by words, names and places only)`,
    );
}

/** A migration failure as the one line an operator reads. */
export function migrationStartupError(err: unknown): Error {
  return err instanceof MigrationError ? new StartupError(err.message) : (err as Error);
}
