/**
 * The PostgreSQL queue across processes, on Debian's server (skipped with a message when it is not installed);
 * test/jobs/fixtures/pgWorker.ts is the other process, as ./processes.test.ts does on SQLite:
 *  - crash: a worker (as if on another host) claims jobs and is SIGKILLed mid-handler; a runner in this process
 *    (another pool) takes its jobs once their lease runs out and finishes everything: every job succeeds, each has
 *    exactly one effect row, the killed jobs ran twice (at-least-once) and the others once;
 *  - a worker process and a runner here drain one queue side by side: each job runs once, and no two runs of
 *    one job overlap;
 *  - an idle runner that polls once a minute claims another process's fresh job at once (NOTIFY lumen_jobs,
 *    heard through Storage.jobWakeups, as the composition root wires it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JobRunner } from '../../src/jobs/runner.js';
import { openPostgresStorage, type PostgresStorage } from '../../src/storage/postgres/index.js';
import { freshSchema } from '../helpers/pglite.js';
import { postgresServer, postgresServerMissing } from '../helpers/postgresServer.js';
import { memoryLogger, sleep, waitFor } from './helpers.js';
import { createPgEffectTables, pgRunEnd, pgRunStart, pgWriteEffect, type PgRunRow } from './pgEffects.js';

const WORKER = path.join(import.meta.dirname, 'fixtures', 'pgWorker.ts');
const missing = postgresServerMissing();
if (missing) console.log(`SKIP jobs: postgres across processes: ${missing}`);
else processes((await postgresServer()).url);

interface Worker {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

function processes(url: string): void {
  const test = suite('jobs: postgres across processes (Debian server)');
  const children: ChildProcess[] = [];
  let storage: PostgresStorage;
  let schema: string;
  test.before.each(async () => {
    schema = freshSchema('proc');
    storage = await openPostgresStorage(url, { schema, vectorSearch: false, poolMax: 6 });
    await createPgEffectTables(storage.db);
  });
  test.after.each(async () => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await storage.close();
  });

  const startWorker = (mode: 'crash' | 'work', leaseMs: number, concurrency: number, ownerHost?: string): Worker => {
    const args = ['--import', 'tsx', WORKER, url, schema, mode, String(leaseMs), String(concurrency)];
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'silent', ...(ownerHost ? { OWNER_HOST: ownerHost } : {}) },
    });
    const lines: string[] = [];
    let buffer = '';
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      lines.push(...parts);
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => {
        if (code !== 0 && code !== null) console.error(stderr);
        resolve(code);
      }),
    );
    children.push(child);
    return { child, lines, exited };
  };

  test('crash: a SIGKILLed worker’s jobs are finished by another after their lease; each once in effect', async () => {
    const { jobs, db } = storage;
    const runner = new JobRunner({ store: jobs, logger: memoryLogger(), leaseMs: 300, pollMs: 20, concurrency: 2 });
    try {
      const ids: number[] = [];
      for (let n = 1; n <= 8; n++)
        ids.push((await jobs.enqueue({ type: 'effect', payload: { n, hangInChild: n === 3 || n === 4 } })).id);
      // A worker "on another host": this side cannot see that it died, so its jobs wait for their lease.
      const worker = startWorker('crash', 600, 2, 'another-host');
      const hanging = () => worker.lines.filter((l) => l.startsWith('hanging'));
      await waitFor(() => hanging().length === 2, 15_000, 'two hanging jobs in the child');
      worker.child.kill('SIGKILL');
      assert.is(await worker.exited, null, 'killed by signal');
      const hung = hanging()
        .map((l) => Number(l.split(' ')[1]))
        .sort((a, b) => a - b);
      assert.equal(hung, [ids[2], ids[3]]);
      for (const id of hung) assert.is((await jobs.get(id))?.status, 'running', 'left running by the dead worker');

      const killedAt = Date.now();
      runner.register<{ n: number }>('effect', async (job) => {
        const run = await pgRunStart(db, job.id, 'parent');
        await pgWriteEffect(db, job.id, `n=${job.payload.n}`);
        await sleep(5);
        await pgRunEnd(db, run);
      });
      runner.start();
      await waitFor(async () => (await jobs.stats()).succeeded === 8, 5000, 'all jobs to succeed');
      const retakenAt = Math.min(
        ...(await Promise.all(hung.map(async (id) => Date.parse((await jobs.get(id))!.startedAt!)))),
      );
      assert.ok(retakenAt - killedAt >= 250, `not taken before the lease ran out (${retakenAt - killedAt} ms)`);
      assert.ok(Date.now() - killedAt < 3000, 'reclaimed within about one lease');
      for (const j of (await jobs.list({ limit: 100 })).items)
        assert.is(j.attempts, hung.includes(j.id) ? 2 : 1, `attempts of job ${j.id}`);
      const effects = await db.many<{ job_id: number; writes: number }>(
        `SELECT job_id, writes FROM job_effects ORDER BY job_id`,
      );
      assert.equal(
        effects.map((e) => e.job_id),
        ids,
        'exactly one effect row per job',
      );
      for (const e of effects) assert.is(e.writes, hung.includes(e.job_id) ? 2 : 1, `job ${e.job_id} ran ${e.writes}×`);
      const completed = (await db.many<PgRunRow>(`SELECT * FROM job_runs WHERE ended IS NOT NULL`)).map(
        (r) => r.job_id,
      );
      assert.equal(
        completed.sort((a, b) => a - b),
        ids,
        'each job completed exactly once',
      );
    } finally {
      await runner.stop({ graceMs: 1000 });
    }
  });

  test('a worker process and a runner here share one queue: each job runs once, never concurrently', async () => {
    const { jobs, db } = storage;
    const N = 80;
    for (let n = 1; n <= N; n++) await jobs.enqueue({ type: 'effect', payload: { n, ms: 2 + (n % 5) * 3 } });
    const runner = new JobRunner({ store: jobs, logger: memoryLogger(), leaseMs: 5000, pollMs: 10, concurrency: 3 });
    const worker = startWorker('work', 5000, 3);
    const workerDidOne = () => worker.lines.some((l) => l.startsWith('done'));
    runner.register<{ n: number; ms: number }>('effect', async (job) => {
      const run = await pgRunStart(db, job.id, 'parent');
      await pgWriteEffect(db, job.id, `n=${job.payload.n}`);
      await sleep(job.payload.ms);
      await waitFor(workerDidOne, 15_000, 'the worker to finish a job');
      await pgRunEnd(db, run);
    });
    try {
      runner.start();
      assert.is(await worker.exited, 0, 'the worker drained the queue and exited cleanly');
      await runner.idle();
      const runs = await db.many<PgRunRow>(`SELECT * FROM job_runs ORDER BY job_id, started`);
      assert.is(runs.length, N, 'one run per job');
      assert.is(new Set(runs.map((r) => r.job_id)).size, N);
      assert.ok(runs.every((r) => r.ended !== null && r.ended >= r.started));
      const owners = new Set(runs.map((r) => (r.owner === 'parent' ? 'parent' : 'child')));
      assert.equal([...owners].sort(), ['child', 'parent'], 'both processes did work');
      assert.is((await jobs.stats()).succeeded, N);
      assert.is((await db.one<{ n: number }>(`SELECT count(*) AS n FROM job_effects WHERE writes = 1`))?.n, N);
    } finally {
      await runner.stop({ graceMs: 1000 });
    }
  });

  test('an idle runner wakes at once for a job enqueued by another process (polling once a minute)', async () => {
    const runner = new JobRunner({ store: storage.jobs, logger: memoryLogger(), pollMs: 60_000 });
    let ranAt = 0;
    runner.register('from-child', async () => void (ranAt = Date.now()));
    const stopWakeups = storage.jobWakeups!.onJobQueued(() => runner.notify());
    try {
      runner.start();
      await runner.idle();
      const child = spawn(process.execPath, ['--import', 'tsx', WORKER, url, schema, 'append'], { stdio: 'ignore' });
      children.push(child);
      const exitedAt = await new Promise<number>((resolve) => child.on('exit', () => resolve(Date.now())));
      await waitFor(() => ranAt > 0, 5000, 'the runner to claim the other process’s job');
      assert.ok(ranAt - exitedAt < 2000, `claimed ${ranAt - exitedAt} ms after the other process ended`);
    } finally {
      stopWakeups();
      await runner.stop({ graceMs: 1000 });
    }
  });

  test.run();
}
