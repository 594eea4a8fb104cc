/**
 * The database going away under load, on Debian's PostgreSQL server (skipped with a message when it is not
 * installed): the server is stopped (`pg_ctl stop -m fast`, as an operator's restart) while a runner works and
 * while requests come, then started again. Requests meanwhile answer 503 {error, message} with Retry-After;
 * the runner pauses (its claims fail and are retried) and resumes; every job completes, none is lost, and a
 * job's effect is written once per job (a job cut off by the outage may run again: at-least-once).
 */
import http from 'node:http';
import Koa from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { errorMiddleware } from '../../src/http/errorMiddleware.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { openPostgresStorage } from '../../src/storage/postgres/index.js';
import { isDatabaseUnavailable } from '../../src/platform/pgErrors.js';
import { freshSchema } from '../helpers/pglite.js';
import { postgresServer, postgresServerControl, postgresServerMissing } from '../helpers/postgresServer.js';
import { memoryLogger, sleep, waitFor } from './helpers.js';
import { createPgEffectTables, pgWriteEffect } from './pgEffects.js';

const missing = postgresServerMissing();
const control = missing ? null : await postgresServerControl();
if (missing || !control)
  console.log(`SKIP jobs: postgres faults: ${missing ?? 'TEST_DATABASE_URL is not ours to stop'}`);
else faults(control);

function faults(server: { stop(): void; start(): void }): void {
  const test = suite('jobs: postgres faults (Debian server)');

  test('pg connection errors are told from bugs', () => {
    for (const code of ['ECONNREFUSED', '57P01', '57P03', '08006', '08001', '53300'])
      assert.ok(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code);
    assert.ok(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')));
    for (const code of ['23505', '42P01', 'ENOENT', undefined])
      assert.not.ok(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), String(code));
  });

  test('a restart under load: requests get 503 with Retry-After, the runner pauses and resumes, no job lost', async () => {
    const { url } = await postgresServer();
    const storage = await openPostgresStorage(url, { schema: freshSchema('fault'), vectorSearch: false, poolMax: 6 });
    await createPgEffectTables(storage.db);
    const koa = new Koa();
    const logger = memoryLogger();
    koa.use(errorMiddleware(logger));
    koa.use(async (ctx) => {
      ctx.body = await storage.jobs.stats();
    });
    const web = http.createServer(koa.callback());
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(web.address() as { port: number }).port}`;

    const runnerLog = memoryLogger();
    const runner = new JobRunner({
      store: storage.jobs,
      logger: runnerLog,
      leaseMs: 1000,
      pollMs: 20,
      concurrency: 3,
      backoff: () => 50,
    });
    runner.register<{ n: number }>('effect', async (job) => {
      await sleep(20);
      await pgWriteEffect(storage.db, job.id, `n=${job.payload.n}`);
    });
    const N = 60;
    try {
      for (let n = 1; n <= N; n++) await storage.jobs.enqueue({ type: 'effect', payload: { n } });
      runner.start();
      await waitFor(async () => (await storage.jobs.stats()).succeeded >= 10, 10_000, 'some jobs done');

      server.stop();
      const down = await fetch(`${base}/`);
      assert.is(down.status, 503);
      assert.is(down.headers.get('retry-after'), '5');
      const body = (await down.json()) as { error: string; message: string };
      assert.is(body.error, 'Service Unavailable');
      assert.match(body.message, /database/);
      await sleep(700);
      const claimFailures = runnerLog.lines.filter((l) => String(l.msg).startsWith('job claim failed')).length;
      assert.is(claimFailures, 1, 'the runner saw its claims fail and logged it once, not once per poll');
      server.start();

      await waitFor(async () => (await storage.jobs.stats()).succeeded === N, 20_000, 'every job to succeed');
      assert.is((await fetch(`${base}/`)).status, 200, 'requests are served again');
      assert.ok(
        runnerLog.lines.some((l) => l.msg === 'job claims work again'),
        'the recovery is logged',
      );
      const effects = await storage.db.many<{ job_id: number; writes: number }>(
        `SELECT job_id, writes FROM job_effects ORDER BY job_id`,
      );
      assert.is(effects.length, N, 'one effect row per job: none lost');
      const again = effects.filter((e) => e.writes > 1).length;
      assert.ok(again <= 3 * 2, `only jobs in flight at the cut may run again (${again})`);
    } finally {
      await runner.stop({ graceMs: 1000 });
      await new Promise((r) => web.close(r));
      await storage.close();
    }
  });

  test.run();
}
