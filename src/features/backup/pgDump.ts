import { spawn } from 'node:child_process';
import { DomainError } from '../../platform/errors.js';

/**
 * A PostgreSQL library's database: `pg_dump -Fc` of its schema into `file` (restored with pg_restore). Refused
 * with one line when pg_dump is not on PATH: the backup of such a library needs the PostgreSQL client tools.
 */
export function pgDump(databaseUrl: string, schema: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('pg_dump', ['-Fc', '--schema', schema, '-f', file, '--dbname', databaseUrl], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT'
          ? new DomainError(
              'unavailable',
              'pg_dump is not on PATH: install the PostgreSQL client tools (the server’s major version) to back up a ' +
                'PostgreSQL library',
            )
          : err,
      ),
    );
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new DomainError('unavailable', `pg_dump failed (${code}): ${stderr.trim()}`)),
    );
  });
}
