/**
 * One process among several (issue 25): the PostgreSQL exclusive lock behind the watched folders, on Debian's
 * server (PGlite's one backend cannot show two sessions; skipped with a message when the server is missing).
 * One holder at a time; release hands it on; a holder whose connection the server ends loses it (`lost`),
 * and the watch service of the process that takes it over starts. Two libraries in one database (DATABASE_SCHEMA)
 * have a lock each (advisory locks are database-wide: the name carries the schema).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openPgDb, type PgDb } from '../../src/platform/pgDb.js';
import { tryExclusiveLock } from '../../src/storage/postgres/exclusiveLock.js';
import { postgresServer, postgresServerMissing } from '../helpers/postgresServer.js';

const test = suite('storage: PostgreSQL exclusive lock (Debian server)');
const missing = postgresServerMissing();
const pools: PgDb[] = [];
test.after(async () => {
  for (const db of pools) await db.close();
});

// An application name of this file's own: on a server shared with other test files (TEST_DATABASE_URL), the
// connection the test ends is one of ours, never another file's.
const appName = `lock-test-${process.pid}`;
async function pool(schema?: string): Promise<PgDb> {
  const url = new URL((await postgresServer()).url);
  url.searchParams.set('application_name', appName);
  const db = openPgDb(url.toString(), { max: 3, ...(schema ? { schema } : {}) });
  pools.push(db);
  return db;
}

if (missing) {
  console.log(`SKIP ${missing}`);
} else {
  test('one holder at a time; release hands it on; a broken connection loses it', async () => {
    const [a, b] = [await pool(), await pool()];
    const held = await tryExclusiveLock(a, 'watched-folders');
    assert.ok(held, 'the first process takes it');
    assert.is(await tryExclusiveLock(b, 'watched-folders'), null, 'the second does not while the first holds it');
    const other = await tryExclusiveLock(b, 'something-else');
    assert.ok(other, 'another name is another lock');
    await other!.release();

    await held!.release();
    const taken = await tryExclusiveLock(b, 'watched-folders');
    assert.ok(taken, 'after release the other process takes it');

    let lost = false;
    void taken!.lost.then(() => (lost = true));
    // The server ends the holder's session (a restart, a failover, an admin): its lock goes with it.
    await a.query(
      `SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.pid <> pg_backend_pid() AND a.application_name = $1`,
      [appName],
    );
    for (let i = 0; i < 100 && !lost; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(lost, 'the holder learns it lost the lock');
    const again = await tryExclusiveLock(a, 'watched-folders');
    assert.ok(again, 'and another process can take it');
    await again!.release();
    await taken!.release();
  });

  test('two libraries in one database (DATABASE_SCHEMA) each have their own lock', async () => {
    const suffix = `${process.pid}_${Date.now()}`;
    const [a, b, a2] = [await pool(`lock_a_${suffix}`), await pool(`lock_b_${suffix}`), await pool(`lock_a_${suffix}`)];
    const held: Array<{ release(): Promise<void> }> = [];
    try {
      const heldA = await tryExclusiveLock(a, 'watched-folders');
      if (heldA) held.push(heldA);
      assert.ok(heldA, "library A's watcher leads");
      const heldB = await tryExclusiveLock(b, 'watched-folders');
      if (heldB) held.push(heldB);
      assert.ok(heldB, "library B's watcher leads too (advisory locks are database-wide; the name is the schema's)");
      assert.is(await tryExclusiveLock(a2, 'watched-folders'), null, 'a second process of library A still waits');
    } finally {
      for (const lock of held) await lock.release();
    }
  });
}

test.run();
