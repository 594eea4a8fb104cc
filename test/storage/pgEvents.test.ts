/**
 * The PostgreSQL event log and its hub, and the job wake-ups: on PGlite, the log's bounds and trimming and
 * the in-process coalescing; on Debian's server (a real multi-process server; skipped with a message when not
 * installed), what one backend cannot show: another process's appends and enqueues heard through
 * LISTEN/NOTIFY, and the listening connection re-established after the server dropped it; another schema's
 * appends (a second library in the same database) wake nobody here.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openPostgresStorage, type PostgresStorage } from '../../src/storage/postgres/index.js';
import { appendEvent } from '../../src/storage/postgres/eventAppend.js';
import type { NewEvent } from '../../src/storage/types.js';
import { freshSchema, pglite, type TestPostgres } from '../helpers/pglite.js';
import { postgresServer, postgresServerMissing } from '../helpers/postgresServer.js';

const PG_WORKER = path.join(import.meta.dirname, '..', 'jobs', 'fixtures', 'pgWorker.ts');
const tick = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const progress = (remaining: number): NewEvent => ({
  type: 'job.progress',
  organizationId: 'org-1',
  collectionId: null,
  mediaId: null,
  data: { job: 'reindex', remaining },
});

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const local = suite('events: postgres (PGlite)');
let server: TestPostgres;
local.before(async () => {
  server = await pglite();
});

local(
  'append, after, bounds and trim; one onAppend call for a burst of concurrent appends, after all of it',
  async () => {
    const s = await openPostgresStorage(server.url, { schema: freshSchema('ev'), vectorSearch: false });
    try {
      assert.equal(await s.events.bounds(), { trimmedThrough: 0, latest: 0 });
      const heard: Array<Promise<number>> = [];
      const off = s.events.onAppend(() => heard.push(s.events.bounds().then((b) => b.latest)));
      const e1 = await s.events.append(progress(3));
      assert.is(e1.data.remaining, 3);
      assert.type(e1.createdAt, 'string');
      await tick();
      assert.equal(await Promise.all(heard), [e1.id]);
      // A store's own transaction (as the media store appends) beside two appends of the log's.
      const storeTx = async () => {
        await s.db.tx((tx) => appendEvent(tx, { ...progress(9), collectionId: 'c1' }));
      };
      await Promise.all([storeTx(), s.events.append(progress(2)), s.events.append(progress(1))]);
      await tick();
      assert.equal(await Promise.all(heard), [e1.id, e1.id + 3], 'one call for a burst, after all of it');
      off();
      const latest = (await s.events.bounds()).latest;
      assert.is(latest, e1.id + 3);
      const all = await s.events.after({ organizationId: 'org-1', afterId: 0, limit: 10, collectionId: 'c2' });
      assert.is(all.length, 3, 'events of another collection are left out, organization-wide ones come');
      assert.is((await s.events.after({ organizationId: 'org-1', afterId: e1.id, limit: 2 })).length, 2);

      assert.is(await s.events.trim(new Date(0).toISOString(), 2), 2, 'all but the newest 2');
      assert.equal(await s.events.bounds(), { trimmedThrough: e1.id + 1, latest });
      assert.is(await s.events.trim(new Date(Date.now() + 60_000).toISOString(), 1000), 2, 'older than the cutoff');
      assert.equal(await s.events.bounds(), { trimmedThrough: latest, latest }, 'an empty log still knows its last id');
      assert.is((await s.events.append(progress(0))).id, latest + 1, 'ids are never reused');
      await tick();
      assert.is(heard.length, 2, 'an unsubscribed listener hears nothing');
    } finally {
      await s.close();
    }
  },
);

local.run();

const missing = postgresServerMissing();
if (missing) console.log(`SKIP events: postgres (Debian server): ${missing}`);
else crossProcess(await postgresServer());

function crossProcess(pg: TestPostgres): void {
  const test = suite('events and job wake-ups: postgres (Debian server), across processes');
  let a: PostgresStorage;
  let b: PostgresStorage;
  // B's connections carry a name of this file's own: on a server shared with other test files (TEST_DATABASE_URL)
  // the listener the test cuts is B's, never another file's.
  const appName = `events-test-${process.pid}`;
  const bUrl = new URL(pg.url);
  bUrl.searchParams.set('application_name', appName);
  test.before.each(async () => {
    const schema = freshSchema('xp');
    // Two storages on one schema: two pools and two listening connections, as two processes have.
    a = await openPostgresStorage(pg.url, { schema, vectorSearch: false, poolMax: 3 });
    b = await openPostgresStorage(bUrl.toString(), { schema, vectorSearch: false, poolMax: 3 });
  });
  test.after.each(async () => {
    await a.close();
    await b.close();
  });

  test("another process's appends and enqueues wake this one; its own appends are heard once", async () => {
    let heardA = 0;
    let heardB = 0;
    let woken = 0;
    a.events.onAppend(() => heardA++);
    b.events.onAppend(() => heardB++);
    b.jobWakeups!.onJobQueued(() => woken++);
    await a.events.append(progress(1));
    await sleep(150);
    assert.is(heardA, 1, 'A heard its own append once (not again through its NOTIFY)');
    const child = spawnSync(process.execPath, ['--import', 'tsx', PG_WORKER, pg.url, a.db.schema, 'append'], {
      encoding: 'utf8',
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    assert.is(child.stdout.trim(), 'done', child.stderr);
    await until(() => heardA === 2 && heardB >= 1 && woken >= 1, 'both to hear the other process');
    assert.is((await b.events.after({ organizationId: 'org-1', afterId: 0, limit: 10 })).length, 2);
  });

  test('an enqueue in one process wakes the job runner of another; the listener comes back after a cut', async () => {
    let woken = 0;
    b.jobWakeups!.onJobQueued(() => woken++);
    await a.jobs.enqueue({ type: 't', payload: {} });
    await until(() => woken >= 1, 'B to hear the enqueue');
    // The server drops B's listening connection (as a restart or a network cut would).
    const before = woken;
    await a.db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid() AND application_name = $1`,
      [appName],
    );
    await until(() => woken > before, 'the reconnected listener to call its subscribers once');
    const reconnected = woken;
    await sleep(50);
    await a.jobs.enqueue({ type: 't', payload: {} });
    await until(() => woken > reconnected, 'B to hear an enqueue after reconnecting');
  });

  test('a library in another schema of the same database (DATABASE_SCHEMA) does not wake this one', async () => {
    let heardB = 0;
    b.events.onAppend(() => heardB++);
    // Another process appends to its own library: NOTIFY is database-wide, and without the schema in its payload
    // B's streams woke for the other library's events too.
    const child = spawnSync(process.execPath, ['--import', 'tsx', PG_WORKER, pg.url, freshSchema('xo'), 'append'], {
      encoding: 'utf8',
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    assert.is(child.stdout.trim(), 'done', child.stderr);
    await sleep(300);
    assert.is(heardB, 0, "another schema's append is not B's");
  });

  test.run();
}
