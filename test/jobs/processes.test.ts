/**
 * The queue across processes (test/jobs/fixtures/worker.ts is the other process):
 *  - crash: a worker claims jobs and is SIGKILLed mid-handler; a runner in this
 *    process, with a short lease, then finishes everything: every job succeeds,
 *    each has exactly one effect row (the handlers' idempotent output), the
 *    killed jobs ran twice (at-least-once) and the finished ones once;
 *  - a worker process and a runner here drain one queue side by side: each job
 *    runs exactly once, and no two runs of one job ever overlap.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JobRunner } from '../../src/jobs/runner.js';
import {
  createEffectTables,
  memoryLogger,
  openQueue,
  recordRunEnd,
  recordRunStart,
  sleep,
  tempDir,
  waitFor,
  writeEffect,
} from './helpers.js';

const tmp = tempDir('jobs-proc-');
const test = suite('jobs: across processes');
const WORKER = path.join(import.meta.dirname, 'fixtures', 'worker.ts');

interface Worker {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

function startWorker(file: string, mode: 'crash' | 'work', leaseMs: number, concurrency: number): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, file, mode, String(leaseMs), String(concurrency)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'silent' },
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
}

/** Workers still alive when a test ends (it failed) are killed. */
const children: ChildProcess[] = [];
test.after.each(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

interface RunRow {
  job_id: number;
  owner: string;
  started: number;
  ended: number | null;
}

test('crash: a SIGKILLed worker’s jobs are reclaimed after their lease; every job completes once in effect', async () => {
  const file = tmp.file();
  const { storage, db, jobs } = openQueue(file);
  createEffectTables(db);
  const runner = new JobRunner({ store: jobs, logger: memoryLogger(), leaseMs: 300, pollMs: 20, concurrency: 2 });
  try {
    // Jobs 1–2 finish in the child; 3–4 hang there (both of its slots) until the kill; 5–8 wait.
    const ids: number[] = [];
    for (let n = 1; n <= 8; n++)
      ids.push((await jobs.enqueue({ type: 'effect', payload: { n, hangInChild: n === 3 || n === 4 } })).id);

    const worker = startWorker(file, 'crash', 600, 2);
    await waitFor(
      () => worker.lines.filter((l) => l.startsWith('hanging')).length === 2,
      8000,
      'two hanging jobs in the child',
    );
    worker.child.kill('SIGKILL');
    assert.is(await worker.exited, null, 'killed by signal');
    const hung = worker.lines
      .filter((l) => l.startsWith('hanging'))
      .map((l) => Number(l.split(' ')[1]))
      .sort();
    assert.equal(hung, [ids[2], ids[3]]);
    for (const id of hung) assert.is((await jobs.get(id))?.status, 'running', 'left running by the dead worker');

    // The restarted side: same handler, without the hang.
    const killedAt = Date.now();
    runner.register<{ n: number }>('effect', async (job) => {
      const run = recordRunStart(db, job.id, 'parent');
      writeEffect(db, job.id, `n=${job.payload.n}`);
      await sleep(5);
      recordRunEnd(db, run);
    });
    runner.start();
    await waitFor(async () => (await jobs.stats()).succeeded === 8, 5000, 'all jobs to succeed');
    assert.ok(Date.now() - killedAt < 3000, 'reclaimed within about one lease');

    const all = (await jobs.list({ limit: 100 })).items;
    assert.ok(all.every((j) => j.status === 'succeeded'));
    for (const j of all) assert.is(j.attempts, hung.includes(j.id) ? 2 : 1, `attempts of job ${j.id}`);

    const effects = db.prepare(`SELECT job_id, value, writes FROM job_effects ORDER BY job_id`).all() as Array<{
      job_id: number;
      value: string;
      writes: number;
    }>;
    assert.equal(
      effects.map((e) => e.job_id),
      ids,
      'exactly one effect row per job',
    );
    assert.equal(
      effects.map((e) => e.value),
      ids.map((_, i) => `n=${i + 1}`),
    );
    for (const e of effects) assert.is(e.writes, hung.includes(e.job_id) ? 2 : 1, `job ${e.job_id} ran ${e.writes}×`);

    const runs = db.prepare(`SELECT * FROM job_runs`).all() as RunRow[];
    const completedRuns = runs.filter((r) => r.ended !== null);
    assert.equal(
      completedRuns.map((r) => r.job_id).sort((a, b) => a - b),
      ids,
      'each job completed exactly once',
    );
  } finally {
    await runner.stop({ graceMs: 1000 });
    await storage.close();
  }
});

test('a worker process and a runner here share one queue: each job runs once, never concurrently', async () => {
  const file = tmp.file();
  const { storage, db, jobs } = openQueue(file);
  createEffectTables(db);
  const N = 80;
  for (let n = 1; n <= N; n++) await jobs.enqueue({ type: 'effect', payload: { n, ms: 2 + (n % 5) * 3 } });

  const runner = new JobRunner({ store: jobs, logger: memoryLogger(), leaseMs: 5000, pollMs: 10, concurrency: 3 });
  const worker = startWorker(file, 'work', 5000, 3);
  // This side starts first and holds its jobs until the worker has finished one,
  // so that both sides surely take part, however the two processes are scheduled.
  const workerDidOne = () => worker.lines.some((l) => l.startsWith('done'));
  runner.register<{ n: number; ms: number }>('effect', async (job) => {
    const run = recordRunStart(db, job.id, 'parent');
    writeEffect(db, job.id, `n=${job.payload.n}`);
    await sleep(job.payload.ms);
    await waitFor(workerDidOne, 10_000, 'the worker to finish a job');
    recordRunEnd(db, run);
  });
  try {
    runner.start();
    assert.is(await worker.exited, 0, 'the worker drained the queue and exited cleanly');
    await runner.idle();

    const runs = db.prepare(`SELECT * FROM job_runs ORDER BY job_id, started`).all() as RunRow[];
    assert.is(runs.length, N, 'one run per job');
    assert.is(new Set(runs.map((r) => r.job_id)).size, N);
    assert.ok(runs.every((r) => r.ended !== null && r.ended >= r.started));
    const owners = new Set(runs.map((r) => (r.owner === 'parent' ? 'parent' : 'child')));
    assert.equal([...owners].sort(), ['child', 'parent'], 'both processes did work');
    assert.is((await jobs.stats()).succeeded, N);
    assert.is(db.prepare(`SELECT count(*) FROM job_effects WHERE writes = 1`).pluck().get(), N);
  } finally {
    await runner.stop({ graceMs: 1000 });
    await storage.close();
  }
});

test.run();
