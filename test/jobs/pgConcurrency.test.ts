/**
 * What PGlite (one backend) cannot prove, on Debian's PostgreSQL server (skipped with a message when it is not
 * installed): several pools, each with several connections, claiming one queue at once never get the same job;
 * concurrent enqueues of one dedupe key make one job; a heartbeating holder keeps its job against claimers in
 * other pools, and loses it to them once it stops; and the claim's plans on a real planner (the jobs_claim index,
 * no sort of the backlog). Whole processes (one SIGKILLed): ./pgProcesses.test.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openPgDb, type PgDb } from '../../src/platform/pgDb.js';
import { LIBRARY_MIGRATIONS, migratePg } from '../../src/storage/postgres/migrate.js';
import { pgJobStore } from '../../src/storage/postgres/jobStore.js';
import type { JobStore } from '../../src/jobs/types.js';
import { freshSchema } from '../helpers/pglite.js';
import { postgresServer, postgresServerMissing } from '../helpers/postgresServer.js';
import { sleep } from './helpers.js';

const missing = postgresServerMissing();
if (missing) console.log(`SKIP jobs: postgres concurrency: ${missing}`);
else concurrency((await postgresServer()).url);

function concurrency(url: string): void {
  const test = suite('jobs: postgres concurrency (Debian server)');
  let pools: PgDb[] = [];
  let stores: JobStore[] = [];
  test.before.each(async () => {
    const schema = freshSchema('cc');
    pools = Array.from({ length: 4 }, () => openPgDb(url, { schema, max: 4 }));
    await migratePg(pools[0], [LIBRARY_MIGRATIONS]);
    stores = pools.map((db) => pgJobStore(db));
  });
  test.after.each(async () => {
    await Promise.all(pools.map((db) => db.close()));
  });

  test('16 claimers over 4 pools drain 300 jobs: each job handed out once', async () => {
    const N = 300;
    for (let i = 0; i < N; i++) await stores[0].enqueue({ type: 't', payload: { i }, priority: i % 3 });
    const claimed: number[] = [];
    const claimer = async (store: JobStore, name: string) => {
      for (;;) {
        const job = await store.claim(name, null, 60_000, new Date(), claimed.length % 2 ? 'newest' : 'oldest');
        if (!job) return;
        claimed.push(job.id);
        await store.complete(job.id, name);
      }
    };
    await Promise.all(stores.flatMap((store, p) => [0, 1, 2, 3].map((c) => claimer(store, `p${p}c${c}`))));
    assert.is(claimed.length, N, 'every job claimed');
    assert.is(new Set(claimed).size, N, 'none twice');
    assert.is((await stores[1].stats()).succeeded, N);
  });

  test('concurrent enqueues of one key from every pool make one job, hurried to the most urgent priority', async () => {
    const jobs = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        stores[i % 4].enqueue({ type: 'ingest', payload: { i }, key: 'media-1', priority: 16 - i }),
      ),
    );
    assert.is(new Set(jobs.map((j) => j.id)).size, 1, 'one job');
    assert.is((await stores[0].get(jobs[0].id))?.priority, 1, 'the most urgent priority asked for');
    assert.is((await stores[0].list({ limit: 10 })).total, 1);
  });

  test('heartbeats keep a job against claimers in other pools; once they stop, another pool reclaims it', async () => {
    const job = await stores[0].enqueue({ type: 't', payload: {} });
    assert.is((await stores[0].claim('A', null, 300))?.id, job.id);
    let stolen = 0;
    const until = Date.now() + 1200;
    const beats = (async () => {
      while (Date.now() < until) {
        await sleep(60);
        assert.ok(await stores[0].heartbeat(job.id, 'A', 300), 'A keeps its lease');
      }
    })();
    const thieves = stores.slice(1).map(async (store, i) => {
      while (Date.now() < until) {
        if (await store.claim(`B${i}`, null, 300)) stolen++;
        await sleep(15);
      }
    });
    await Promise.all([beats, ...thieves]);
    assert.is(stolen, 0, 'never reclaimed while A beat');
    await sleep(350);
    const taken = await Promise.all(stores.slice(1).map((store, i) => store.claim(`C${i}`, null, 60_000)));
    const winners = taken.filter((j) => j !== null);
    assert.is(winners.length, 1, 'one pool reclaims it');
    assert.is(winners[0]!.attempts, 2);
    assert.is(await stores[0].heartbeat(job.id, 'A', 300), false, 'A is fenced off');
    assert.is(await stores[0].complete(job.id, 'A'), false);
  });

  test('query plans: both claim orders read the jobs_claim index without sorting the backlog', async () => {
    const db = pools[0];
    await db.query(`INSERT INTO jobs (type, payload, priority, status, run_after, created_at, updated_at)
      SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END, '{}', i % 3,
        CASE WHEN i % 10 = 0 THEN 'queued' ELSE 'succeeded' END, now() - i * interval '1 ms', now(), now()
      FROM generate_series(1, 30000) i`);
    await db.query('ANALYZE jobs');
    const DUE = `status = 'queued' AND run_after <= now() AND ($1::text[] IS NULL OR type = ANY($1::text[]))`;
    const plan = async (sql: string) =>
      (await db.many<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, [['a', 'b']])).map((r) => r['QUERY PLAN']).join('\n');
    const oldest = await plan(
      `SELECT id FROM jobs WHERE ${DUE} ORDER BY priority, run_after, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
    );
    assert.match(oldest, /Index Scan using jobs_claim/);
    assert.not.match(oldest, /Sort/, oldest);
    const newest = await plan(
      `SELECT id FROM jobs WHERE ${DUE} AND priority = (SELECT min(priority) FROM jobs WHERE ${DUE})
       ORDER BY run_after DESC, id DESC LIMIT 1 FOR UPDATE SKIP LOCKED`,
    );
    assert.match(newest, /Index Scan Backward using jobs_claim/);
    assert.not.match(newest, /Sort/, newest);
  });

  test.run();
}
