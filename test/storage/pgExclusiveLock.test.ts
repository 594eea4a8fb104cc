/**
 * One process among several (issue 25): the PostgreSQL exclusive lock behind the watched folders, on Debian's
 * server (PGlite's one backend cannot show two sessions; skipped with a message when the server is missing).
 * One holder at a time; release hands it on; a holder whose connection the server ends loses it (`lost`),
 * and the watch service of the process that takes it over starts.
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

async function pool(): Promise<PgDb> {
  const db = openPgDb((await postgresServer()).url, { max: 3 });
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
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()`,
    );
    for (let i = 0; i < 100 && !lost; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(lost, 'the holder learns it lost the lock');
    const again = await tryExclusiveLock(a, 'watched-folders');
    assert.ok(again, 'and another process can take it');
    await again!.release();
    await taken!.release();
  });
}

test.run();
