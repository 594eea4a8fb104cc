import pg from 'pg';
import { schemaLockName, type PgDb } from '../../platform/pgDb.js';
import type { ExclusiveLock } from '../exclusiveLock.js';

/** The first key of our two-key advisory locks (the second names the work); 'lumx', apart from migrate.ts's. */
const LOCK_SPACE = 0x6c756d78;

/**
 * Takes the session advisory lock named `name` on a connection of its own, held until release() or until that
 * connection breaks (the database restarted, the network dropped: `lost` resolves, and another process may take
 * it). Null when another process holds it now. The lock is this schema's (a second library in the same database
 * has its own).
 */
export async function tryExclusiveLock(db: PgDb, name: string): Promise<ExclusiveLock | null> {
  // A connection of its own, outside the pool: held for as long as the lock, it must not take a pooled one
  // from the requests (with a pool of one, they would wait for ever).
  const client = new pg.Client({ ...db.pool.options });
  const ended = new Promise<void>((resolve) => {
    client.on('error', () => resolve());
    client.on('end', () => resolve());
  });
  let held = false;
  try {
    await client.connect();
    const row = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok`, [
      LOCK_SPACE,
      schemaLockName(db, name),
    ]);
    held = row.rows[0]?.ok === true;
  } finally {
    if (!held) await client.end().catch(() => {});
  }
  if (!held) return null;
  let released = false;
  return {
    lost: ended,
    async release() {
      if (released) return;
      released = true;
      // Ending the connection ends its session, and with it the lock, whatever state the connection is in.
      await client.end().catch(() => {});
    },
  };
}
