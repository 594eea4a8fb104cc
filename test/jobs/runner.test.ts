/**
 * The JobRunner over the SQLite store: order, exclusive claims by two runners
 * on one file, heartbeats, lease loss, backoff, permanent errors, max attempts,
 * timeouts, notify(), logging, and stop() with and without a grace period.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { unprocessable } from '../../src/platform/errors.js';
import { backoffDelay, isPermanent, JobAbort, PermanentJobError } from '../../src/jobs/failures.js';
import { JobRunner, type JobRunnerOptions } from '../../src/jobs/runner.js';
import type { Job } from '../../src/jobs/types.js';
import { memoryLogger, openQueue, sleep, tempDir, waitFor } from './helpers.js';

const tmp = tempDir('jobs-runner-');
const test = suite('jobs: runner');

/** A queue on a fresh file and a runner on it; `close` stops the runner and closes the database. */
function setup(opts: Partial<JobRunnerOptions> = {}, file = tmp.file()) {
  const q = openQueue(file);
  const logger = memoryLogger();
  const runner = new JobRunner({ store: q.jobs, logger, pollMs: 10, leaseMs: 5000, ...opts });
  return {
    ...q,
    file,
    logger,
    runner,
    async close() {
      await runner.stop({ graceMs: 1000, killMs: 500 });
      await q.storage.close();
    },
  };
}

test('runs jobs in priority order, then age (concurrency 1), and logs start and finish with durations', async () => {
  const t = setup();
  try {
    const order: number[] = [];
    t.runner.register<{ n: number }>('t', async (job) => void order.push(job.payload.n));
    await t.jobs.enqueue({ type: 't', payload: { n: 1 }, priority: 10 });
    await t.jobs.enqueue({ type: 't', payload: { n: 2 } });
    await t.jobs.enqueue({ type: 't', payload: { n: 3 }, priority: 10 });
    await t.jobs.enqueue({ type: 't', payload: { n: 4 } });
    t.runner.start();
    await t.runner.idle();
    assert.equal(order, [2, 4, 1, 3]);
    assert.is((await t.jobs.stats()).succeeded, 4);
    const started = t.logger.lines.filter((l) => l.msg === 'job started');
    const finished = t.logger.lines.filter((l) => l.msg === 'job succeeded');
    assert.is(started.length, 4);
    assert.is(finished.length, 4);
    assert.ok(
      finished.every((l) => typeof l.durationMs === 'number' && typeof l.jobId === 'number' && l.jobType === 't'),
    );
  } finally {
    await t.close();
  }
});

test('two runners on one file (own connections) never run the same job twice; both get work', async () => {
  const file = tmp.file();
  const a = setup({ concurrency: 3 }, file);
  const b = setup({ concurrency: 3 }, file);
  try {
    const runs = new Map<number, string[]>();
    const active = new Set<number>();
    let overlaps = 0;
    let peak = 0;
    const handler = (name: string) => async (job: Job<{ ms: number }>) => {
      if (active.has(job.id)) overlaps++;
      active.add(job.id);
      peak = Math.max(peak, active.size);
      runs.set(job.id, [...(runs.get(job.id) ?? []), name]);
      await sleep(job.payload.ms);
      active.delete(job.id);
    };
    a.runner.register('t', handler('A'));
    b.runner.register('t', handler('B'));
    const N = 60;
    for (let i = 0; i < N; i++) await a.jobs.enqueue({ type: 't', payload: { ms: 5 + (i % 4) * 5 } });
    a.runner.start();
    b.runner.start();
    await waitFor(async () => (await a.jobs.stats()).succeeded === N, 8000, 'all jobs to succeed');
    assert.is(overlaps, 0);
    assert.is(runs.size, N);
    assert.ok(
      [...runs.values()].every((r) => r.length === 1),
      'each job ran once',
    );
    const byA = [...runs.values()].filter((r) => r[0] === 'A').length;
    assert.ok(byA > 0 && byA < N, `work was shared (A ran ${byA} of ${N})`);
    assert.ok(peak > 3, `more than one runner's worth in flight (peak ${peak})`);
    const jobs = (await a.jobs.list({ limit: N })).items;
    assert.ok(jobs.every((j) => j.attempts === 1 && j.status === 'succeeded'));
  } finally {
    await a.close();
    await b.close();
  }
});

test('automatic heartbeats keep a long job’s lease; a competing runner never gets it', async () => {
  const file = tmp.file();
  const a = setup({ leaseMs: 150 }, file);
  const b = setup({ leaseMs: 150 }, file);
  try {
    let runs = 0;
    a.runner.register('long', async () => {
      runs++;
      await sleep(700);
    });
    b.runner.register('long', async () => void runs++);
    const job = await a.jobs.enqueue({ type: 'long', payload: {} });
    a.runner.start();
    await waitFor(async () => (await a.jobs.get(job.id))?.status === 'running', 2000, 'job to start');
    b.runner.start();
    await waitFor(async () => (await a.jobs.get(job.id))?.status === 'succeeded', 3000, 'job to succeed');
    assert.is(runs, 1);
    assert.is((await a.jobs.get(job.id))?.attempts, 1);
  } finally {
    await a.close();
    await b.close();
  }
});

test('a handler whose lease is lost (job cancelled) is aborted with lease_lost; nothing is recorded over it', async () => {
  const t = setup({ leaseMs: 90 });
  try {
    let reason: unknown;
    t.runner.register('t', async (_job, ctx) => {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      reason = ctx.signal.reason;
      throw ctx.signal.reason;
    });
    const job = await t.jobs.enqueue({ type: 't', payload: {} });
    t.runner.start();
    await waitFor(async () => (await t.jobs.get(job.id))?.status === 'running', 2000, 'job to start');
    assert.ok(await t.jobs.cancel(job.id));
    await t.runner.idle();
    assert.instance(reason, JobAbort);
    assert.is((reason as JobAbort).why, 'lease_lost');
    const after = await t.jobs.get(job.id);
    assert.is(after?.status, 'cancelled');
    assert.is(after?.lastError, null);
  } finally {
    await t.close();
  }
});

test('a failing job is retried after its backoff (run_after in the future, not claimed before it)', async () => {
  const delays: number[] = [];
  const t = setup({ backoff: (attempt) => (delays.push(attempt), 250) });
  try {
    const startedAt: number[] = [];
    t.runner.register('flaky', async () => {
      startedAt.push(Date.now());
      if (startedAt.length < 3) throw new Error(`transient ${startedAt.length}`);
    });
    const job = await t.jobs.enqueue({ type: 'flaky', payload: {} });
    t.runner.start();
    await waitFor(() => startedAt.length === 1, 2000, 'first run');
    await waitFor(async () => (await t.jobs.get(job.id))?.status === 'queued', 2000, 'requeue');
    const waiting = await t.jobs.get(job.id);
    assert.ok(Date.parse(waiting!.runAfter) > Date.now(), 'run_after is in the future');
    assert.is(waiting?.lastError, 'transient 1');
    await waitFor(async () => (await t.jobs.get(job.id))?.status === 'succeeded', 3000, 'success');
    assert.is(startedAt.length, 3);
    assert.ok(startedAt[1] - startedAt[0] >= 240, `second run waited its backoff (${startedAt[1] - startedAt[0]} ms)`);
    assert.ok(startedAt[2] - startedAt[1] >= 240, `third run waited its backoff (${startedAt[2] - startedAt[1]} ms)`);
    assert.equal(delays, [1, 2]);
    const done = await t.jobs.get(job.id);
    assert.is(done?.attempts, 3);
    assert.ok(t.logger.lines.some((l) => l.msg === 'job failed; will retry' && typeof l.retryAt === 'string'));
  } finally {
    await t.close();
  }
});

test('backoff: 2 s × 2^(attempt − 1), capped at 10 min, with jitter', () => {
  const mid = () => 0.5;
  assert.is(backoffDelay(1, {}, mid), 2000);
  assert.is(backoffDelay(2, {}, mid), 4000);
  assert.is(backoffDelay(5, {}, mid), 32_000);
  assert.is(backoffDelay(30, {}, mid), 600_000);
  assert.is(
    backoffDelay(1, {}, () => 0),
    1600,
    '−20 %',
  );
  assert.is(
    backoffDelay(1, {}, () => 1),
    2400,
    '+20 %',
  );
  assert.is(
    backoffDelay(30, {}, () => 1),
    600_000,
    'the cap holds with jitter',
  );
  const spread = new Set(Array.from({ length: 20 }, () => backoffDelay(3)));
  assert.ok(spread.size > 1, 'random spread');
});

test('permanent errors fail at once: permanent flag, unprocessable DomainError, unparsable payload', async () => {
  const t = setup({ backoff: () => 10 });
  try {
    let runs = 0;
    t.runner.register('flagged', async () => {
      runs++;
      throw Object.assign(new Error('corrupt file'), { permanent: true });
    });
    t.runner.register('domain', async () => {
      runs++;
      throw unprocessable('the video could not be decoded');
    });
    t.runner.register<{ n: number }>('parsed', async () => void runs++, {
      parse: (p) => {
        if (typeof (p as { n?: unknown }).n !== 'number') throw new Error('n must be a number');
        return p as { n: number };
      },
    });
    const ids = [
      (await t.jobs.enqueue({ type: 'flagged', payload: {} })).id,
      (await t.jobs.enqueue({ type: 'domain', payload: {} })).id,
      (await t.jobs.enqueue({ type: 'parsed', payload: { n: 'x' } })).id,
    ];
    t.runner.start();
    await t.runner.idle();
    const jobs = await Promise.all(ids.map((id) => t.jobs.get(id)));
    assert.equal(
      jobs.map((j) => [j?.status, j?.attempts]),
      [
        ['failed', 1],
        ['failed', 1],
        ['failed', 1],
      ],
    );
    assert.equal(
      jobs.map((j) => j?.lastError),
      ['corrupt file', 'the video could not be decoded', 'invalid job payload: n must be a number'],
    );
    assert.is(runs, 2, 'the unparsable payload never reached its handler');
    assert.ok(isPermanent(new PermanentJobError('x')));
    assert.not.ok(isPermanent(new Error('x')));
  } finally {
    await t.close();
  }
});

test('max attempts: a job that keeps failing ends failed with its last error', async () => {
  const t = setup({ backoff: () => 5 });
  try {
    let runs = 0;
    t.runner.register('doomed', async () => {
      runs++;
      throw new Error(`failure ${runs}`);
    });
    const job = await t.jobs.enqueue({ type: 'doomed', payload: {}, maxAttempts: 3 });
    t.runner.start();
    await waitFor(async () => (await t.jobs.get(job.id))?.status === 'failed', 3000, 'final failure');
    const failed = await t.jobs.get(job.id);
    assert.is(runs, 3);
    assert.is(failed?.attempts, 3);
    assert.is(failed?.lastError, 'failure 3');
    assert.ok(t.logger.lines.some((l) => l.msg === 'job failed after its last attempt' && l.level === 'error'));
  } finally {
    await t.close();
  }
});

test('timeoutMs aborts the handler with a timeout reason and counts as a retryable failure', async () => {
  const t = setup({ backoff: () => 5 });
  try {
    const reasons: string[] = [];
    t.runner.register(
      'slow',
      async (_job, ctx) => {
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        reasons.push((ctx.signal.reason as JobAbort).why);
        throw ctx.signal.reason;
      },
      { timeoutMs: 50 },
    );
    const job = await t.jobs.enqueue({ type: 'slow', payload: {}, maxAttempts: 2 });
    t.runner.start();
    await waitFor(async () => (await t.jobs.get(job.id))?.status === 'failed', 3000, 'failure');
    assert.equal(reasons, ['timeout', 'timeout']);
    assert.match((await t.jobs.get(job.id))?.lastError ?? '', /timed out after 50 ms/);
  } finally {
    await t.close();
  }
});

test('notify() wakes an idle runner at once; progress is stored', async () => {
  const t = setup({ pollMs: 60_000 });
  try {
    let ran = 0;
    t.runner.register('t', async (_job, ctx) => {
      await ctx.progress({ step: 'frames', done: 1 });
      assert.ok(await ctx.heartbeat());
      ran++;
    });
    t.runner.start();
    await t.runner.idle();
    const job = await t.jobs.enqueue({ type: 't', payload: {} });
    const before = Date.now();
    t.runner.notify();
    await waitFor(() => ran === 1, 1000, 'job after notify');
    assert.ok(Date.now() - before < 500);
    assert.equal((await t.jobs.get(job.id))?.progress, { step: 'frames', done: 1 });
  } finally {
    await t.close();
  }
});

test('stop() stops claiming and waits for in-flight handlers within the grace period', async () => {
  const t = setup({ concurrency: 2 });
  try {
    let finished = 0;
    let started = 0;
    t.runner.register<{ ms: number }>('t', async (job) => {
      started++;
      await sleep(job.payload.ms);
      finished++;
    });
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await t.jobs.enqueue({ type: 't', payload: { ms: 200 } })).id);
    t.runner.start();
    await waitFor(() => started === 2, 2000, 'two jobs to start');
    const result = await t.runner.stop({ graceMs: 2000 });
    assert.equal(result, { abandoned: 0 });
    assert.is(finished, 2, 'both in-flight handlers completed before stop() resolved');
    const s = await t.jobs.stats();
    assert.is(s.succeeded, 2);
    assert.is(s.queued, 2, 'nothing new was claimed');
  } finally {
    await t.close();
  }
});

test('stop() aborts handlers after the grace period; the interrupted job is queued again with its attempt refunded', async () => {
  const t = setup();
  try {
    let reason: unknown;
    let settled = false;
    t.runner.register('t', async (_job, ctx) => {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      reason = ctx.signal.reason;
      await sleep(20); // clean-up after the abort
      settled = true;
      throw ctx.signal.reason;
    });
    const job = await t.jobs.enqueue({ type: 't', payload: {} });
    t.runner.start();
    await waitFor(async () => (await t.jobs.get(job.id))?.status === 'running', 2000, 'job to start');
    const before = Date.now();
    const result = await t.runner.stop({ graceMs: 100 });
    const took = Date.now() - before;
    assert.ok(took >= 100 && took < 1000, `stop took ${took} ms`);
    assert.ok(settled, 'stop waited for the aborted handler to settle');
    assert.equal(result, { abandoned: 0 });
    assert.instance(reason, JobAbort);
    assert.is((reason as JobAbort).why, 'shutdown');
    const after = await t.jobs.get(job.id);
    assert.is(after?.status, 'queued');
    assert.is(after?.attempts, 0);
  } finally {
    await t.close();
  }
});

test('stop() gives up on a handler that ignores its signal after killMs; its lease is left to expire', async () => {
  const t = setup({ leaseMs: 200 });
  try {
    let release!: () => void;
    const never = new Promise<void>((r) => (release = r));
    t.runner.register('stuck', () => never);
    const job = await t.jobs.enqueue({ type: 'stuck', payload: {} });
    t.runner.start();
    await waitFor(async () => (await t.jobs.get(job.id))?.status === 'running', 2000, 'job to start');
    const result = await t.runner.stop({ graceMs: 30, killMs: 30 });
    assert.equal(result, { abandoned: 1 });
    assert.is((await t.jobs.get(job.id))?.status, 'running');
    release();
  } finally {
    await t.close();
  }
});

test('pausable: while the queue is paused only the kept types run; resume runs the rest', async () => {
  const t = setup({ pausable: { keep: ['urgent'] }, concurrency: 2 });
  try {
    const ran: string[] = [];
    for (const type of ['urgent', 'slow']) t.runner.register(type, async () => void ran.push(type));
    await t.jobs.setPaused(true);
    await t.jobs.enqueue({ type: 'slow', payload: {} });
    await t.jobs.enqueue({ type: 'urgent', payload: {}, priority: 5 });
    t.runner.start();
    await waitFor(() => ran.length === 1);
    await sleep(100);
    assert.equal(ran, ['urgent'], 'the slow job waits while paused');
    await t.jobs.setPaused(false);
    t.runner.notify();
    await waitFor(() => ran.length === 2);
    assert.equal(ran, ['urgent', 'slow']);
  } finally {
    await t.close();
  }
});

test('a runner claims only its registered types', async () => {
  const t = setup();
  try {
    let ran = 0;
    t.runner.register('mine', async () => void ran++);
    const other = await t.jobs.enqueue({ type: 'theirs', payload: {} });
    await t.jobs.enqueue({ type: 'mine', payload: {}, priority: 10 });
    t.runner.start();
    await t.runner.idle();
    assert.is(ran, 1);
    assert.is((await t.jobs.get(other.id))?.status, 'queued');
  } finally {
    await t.close();
  }
});

test('the urgent lane: an urgent job runs beside a long job that holds every general slot; others wait', async () => {
  const t = setup({ concurrency: 1, lane: { types: ['urgent'], slots: 1 } });
  try {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const ran: string[] = [];
    t.runner.register('long', async () => {
      ran.push('long');
      await held;
    });
    t.runner.register('other', async () => void ran.push('other'));
    t.runner.register('urgent', async () => void ran.push('urgent'));
    await t.jobs.enqueue({ type: 'long', payload: {} });
    t.runner.start();
    await waitFor(() => ran.includes('long'));
    await t.jobs.enqueue({ type: 'other', payload: {} });
    await t.jobs.enqueue({ type: 'urgent', payload: {}, priority: 5 });
    t.runner.notify();
    await waitFor(() => ran.includes('urgent'), 3000, 'the urgent job ran in the lane');
    await sleep(50);
    assert.equal(ran, ['long', 'urgent'], 'the other job waits for the general slot');
    release();
    await waitFor(() => ran.includes('other'));
    await t.runner.idle();
  } finally {
    await t.close();
  }
});

test.run();
