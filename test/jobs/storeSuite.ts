/**
 * The job store's contract, engine-neutral: priority order, dedupe keys, lease expiry and reclaim,
 * heartbeats, backoff (run_after), attempts, retry, cancel, listing, stats, prune. Run on SQLite
 * (./store.test.ts) and on PostgreSQL (./pgStore.test.ts: PGlite, and Debian's server when installed).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../src/platform/errors.js';
import type { JobStore } from '../../src/jobs/types.js';
import { sleep } from './helpers.js';

/** A fresh, empty job store and how to close it. */
export type OpenJobStore = () => Promise<{ jobs: JobStore; close(): Promise<void> }>;

const at = (base: Date, ms: number) => new Date(base.getTime() + ms);
const LEASE = 60_000;

/** Registers the contract tests on a suite named after the engine and runs it. */
export function jobStoreSuite(name: string, open: OpenJobStore): void {
  const test = suite(`jobs: ${name} store`);

  test('claims are handed out by priority, then age', async () => {
    const { jobs, close } = await open();
    try {
      const reindex1 = await jobs.enqueue({ type: 'reindex', payload: { i: 1 }, priority: 10 });
      const upload1 = await jobs.enqueue({ type: 'ingest', payload: { i: 2 } });
      const reindex2 = await jobs.enqueue({ type: 'reindex', payload: { i: 3 }, priority: 10 });
      const upload2 = await jobs.enqueue({ type: 'ingest', payload: { i: 4 }, priority: 0 });
      assert.is(upload1.status, 'queued');
      assert.is(upload1.priority, 0);
      assert.is(upload1.maxAttempts, 5);
      assert.is(upload1.attempts, 0);
      assert.equal(upload1.payload, { i: 2 });

      const order: number[] = [];
      for (;;) {
        const job = await jobs.claim('w', null, LEASE);
        if (!job) break;
        assert.is(job.status, 'running');
        assert.is(job.attempts, 1);
        assert.is(job.leaseOwner, 'w');
        order.push(job.id);
      }
      assert.equal(order, [upload1.id, upload2.id, reindex1.id, reindex2.id]);
    } finally {
      await close();
    }
  });

  test('claim takes only the requested types; an empty list takes nothing', async () => {
    const { jobs, close } = await open();
    try {
      await jobs.enqueue({ type: 'a', payload: {} });
      const b = await jobs.enqueue({ type: 'b', payload: {}, priority: 5 });
      assert.is(await jobs.claim('w', [], LEASE), null);
      assert.is((await jobs.claim('w', ['b', 'c'], LEASE))?.id, b.id);
      assert.is(await jobs.claim('w', ['b'], LEASE), null);
    } finally {
      await close();
    }
  });

  test('dedupe key: one unfinished job per (type, key); a queued one takes the more urgent priority', async () => {
    const { jobs, close } = await open();
    try {
      const first = await jobs.enqueue({ type: 'ingest', payload: { v: 1 }, key: 'media-1', priority: 10 });
      const again = await jobs.enqueue({ type: 'ingest', payload: { v: 2 }, key: 'media-1', priority: 0 });
      assert.is(again.id, first.id, 'same job');
      assert.is(again.priority, 0, 'the fresh upload made it urgent');
      assert.equal(again.payload, { v: 1 }, 'payload of the existing job');
      const less = await jobs.enqueue({ type: 'ingest', payload: {}, key: 'media-1', priority: 10 });
      assert.is(less.priority, 0, 'never made less urgent');

      const otherType = await jobs.enqueue({ type: 'reindex', payload: {}, key: 'media-1' });
      assert.is.not(otherType.id, first.id, 'keys are per type');
      const otherKey = await jobs.enqueue({ type: 'ingest', payload: {}, key: 'media-2' });
      assert.is.not(otherKey.id, first.id);

      // Still deduplicated while running…
      const claimed = await jobs.claim('w', ['ingest'], LEASE);
      assert.is(claimed?.id, first.id);
      assert.is((await jobs.enqueue({ type: 'ingest', payload: {}, key: 'media-1' })).id, first.id);
      // …but once finished, the key is free again.
      assert.ok(await jobs.complete(first.id, 'w'));
      const next = await jobs.enqueue({ type: 'ingest', payload: {}, key: 'media-1' });
      assert.is.not(next.id, first.id);
      assert.is(next.status, 'queued');
    } finally {
      await close();
    }
  });

  test('lease expiry: a crashed owner’s job is reclaimed by another; the old owner is fenced off', async () => {
    const { jobs, close } = await open();
    try {
      const job = await jobs.enqueue({ type: 't', payload: {} });
      const t0 = new Date(); // after the enqueue: the job is due from its enqueue time
      const byA = await jobs.claim('A', null, 1000, t0);
      assert.is(byA?.id, job.id);
      assert.is(await jobs.claim('B', null, 1000, at(t0, 999)), null, 'lease still held');

      const byB = await jobs.claim('B', null, 1000, at(t0, 1001));
      assert.ok(byB);
      assert.is(byB.id, job.id);
      assert.is(byB.attempts, 2);
      assert.is(byB.leaseOwner, 'B');
      assert.match(byB.lastError ?? '', /lease expired/);

      assert.is(await jobs.heartbeat(job.id, 'A', 1000), false, 'A lost its lease');
      assert.is(await jobs.complete(job.id, 'A'), false);
      assert.is(await jobs.fail(job.id, 'A', 'late', null), false);
      assert.is(await jobs.setProgress(job.id, 'A', { p: 1 }), false);
      assert.is((await jobs.get(job.id))?.status, 'running');
      assert.ok(await jobs.complete(job.id, 'B'));
      const done = await jobs.get(job.id);
      assert.is(done?.status, 'succeeded');
      assert.ok(done?.finishedAt);
    } finally {
      await close();
    }
  });

  test('heartbeat keeps the lease; without it the job is reclaimed', async () => {
    const { jobs, close } = await open();
    try {
      const job = await jobs.enqueue({ type: 't', payload: {} });
      await jobs.claim('A', null, 150);
      for (let i = 0; i < 6; i++) {
        await sleep(50);
        assert.ok(await jobs.heartbeat(job.id, 'A', 150));
        assert.is(await jobs.claim('B', null, 150), null, `reclaimed despite heartbeats (beat ${i})`);
      }
      await sleep(200);
      assert.is((await jobs.claim('B', null, 150))?.id, job.id);
    } finally {
      await close();
    }
  });

  test('fail with retryAt: queued again, not claimed before run_after; fail with null: failed for good', async () => {
    const { jobs, close } = await open();
    try {
      const job = await jobs.enqueue({ type: 't', payload: {}, maxAttempts: 3 });
      const t0 = new Date();
      await jobs.claim('A', null, LEASE, t0);
      const retryAt = at(t0, 5000).toISOString();
      assert.ok(await jobs.fail(job.id, 'A', 'boom', retryAt));
      const queued = await jobs.get(job.id);
      assert.is(queued?.status, 'queued');
      assert.is(queued?.runAfter, retryAt);
      assert.is(queued?.lastError, 'boom');
      assert.is(queued?.leaseOwner, null);

      assert.is(await jobs.claim('A', null, LEASE, at(t0, 4999)), null, 'not before run_after');
      const second = await jobs.claim('A', null, LEASE, at(t0, 5000));
      assert.is(second?.attempts, 2);
      assert.ok(await jobs.fail(job.id, 'A', 'broken for good', null));
      const failed = await jobs.get(job.id);
      assert.is(failed?.status, 'failed');
      assert.is(failed?.lastError, 'broken for good');
      assert.ok(failed?.finishedAt);
      assert.is(await jobs.claim('A', null, LEASE, at(t0, 60_000)), null);
    } finally {
      await close();
    }
  });

  test('runAfter on enqueue delays the first run', async () => {
    const { jobs, close } = await open();
    try {
      const t0 = new Date();
      await jobs.enqueue({ type: 't', payload: {}, runAfter: at(t0, 1000).toISOString() });
      assert.is(await jobs.claim('A', null, LEASE, t0), null);
      assert.ok(await jobs.claim('A', null, LEASE, at(t0, 1000)));
      let error: unknown;
      try {
        await jobs.enqueue({ type: 't', payload: {}, runAfter: 'tomorrow' });
      } catch (err) {
        error = err;
      }
      assert.instance(error, DomainError);
      assert.is((error as DomainError).code, 'invalid_input');
    } finally {
      await close();
    }
  });

  test('an expired job with no attempts left is failed, not handed out again', async () => {
    const { jobs, close } = await open();
    try {
      const job = await jobs.enqueue({ type: 't', payload: {}, maxAttempts: 2 });
      const t0 = new Date();
      await jobs.claim('A', null, 100, t0);
      assert.is((await jobs.claim('B', null, 100, at(t0, 200)))?.attempts, 2, 'second and last attempt');
      assert.is(await jobs.claim('C', null, 100, at(t0, 400)), null);
      const failed = await jobs.get(job.id);
      assert.is(failed?.status, 'failed');
      assert.match(failed?.lastError ?? '', /stopped responding.*2 attempts/);
    } finally {
      await close();
    }
  });

  test('release puts a job back without spending the attempt; progress is stored', async () => {
    const { jobs, close } = await open();
    try {
      const job = await jobs.enqueue({ type: 't', payload: {} });
      await jobs.claim('A', null, LEASE);
      assert.ok(await jobs.setProgress(job.id, 'A', { frames: 3, of: 10 }));
      assert.equal((await jobs.get(job.id))?.progress, { frames: 3, of: 10 });
      assert.ok(await jobs.release(job.id, 'A'));
      const back = await jobs.get(job.id);
      assert.is(back?.status, 'queued');
      assert.is(back?.attempts, 0);
      assert.is((await jobs.claim('B', null, LEASE))?.attempts, 1);
    } finally {
      await close();
    }
  });

  test('retry: failed → queued with attempts reset; with the key taken, the unfinished job is returned', async () => {
    const { jobs, close } = await open();
    try {
      const job = await jobs.enqueue({ type: 'ingest', payload: {}, key: 'm1', maxAttempts: 1 });
      await jobs.claim('A', null, LEASE);
      await jobs.fail(job.id, 'A', 'bad', null);
      assert.is(await jobs.retry(12345), null, 'no such job');

      const retried = await jobs.retry(job.id);
      assert.is(retried?.id, job.id);
      assert.is(retried?.status, 'queued');
      assert.is(retried?.attempts, 0);
      assert.is(retried?.finishedAt, null);
      assert.is(await jobs.retry(job.id), null, 'queued jobs are not retried');

      await jobs.claim('A', null, LEASE);
      await jobs.fail(job.id, 'A', 'bad again', null);
      const fresh = await jobs.enqueue({ type: 'ingest', payload: {}, key: 'm1' });
      assert.is.not(fresh.id, job.id);
      assert.is((await jobs.retry(job.id))?.id, fresh.id, 'the unfinished job with the key');
      assert.is((await jobs.get(job.id))?.status, 'failed', 'left as it was');
    } finally {
      await close();
    }
  });

  test('retryFailed: every failed job (of the types) queued again; a taken key and other states are left', async () => {
    const { jobs, close } = await open();
    try {
      const failed = async (type: string, key: string | null) => {
        const job = await jobs.enqueue({ type, payload: {}, key, maxAttempts: 1 });
        const claimed = await jobs.claim('A', [type], LEASE);
        assert.is(claimed?.id, job.id);
        await jobs.fail(job.id, 'A', `bad ${type}`, null);
        return job.id;
      };
      const a1 = await failed('a', null);
      const a2 = await failed('a', 'k');
      const b1 = await failed('b', null);
      const taken = await failed('b', 'k2');
      await jobs.enqueue({ type: 'b', payload: {}, key: 'k2' });
      const queued = await jobs.enqueue({ type: 'c', payload: {} });
      assert.is(await jobs.retryFailed(['a']), 2);
      for (const id of [a1, a2]) {
        const job = await jobs.get(id);
        assert.is(job?.status, 'queued');
        assert.is(job?.attempts, 0);
      }
      assert.is((await jobs.get(b1))?.status, 'failed', 'another type is left');
      assert.is(await jobs.retryFailed(null), 1, 'the one whose key is taken stays failed');
      assert.is((await jobs.get(b1))?.status, 'queued');
      assert.is((await jobs.get(taken))?.status, 'failed');
      assert.is((await jobs.get(queued.id))?.status, 'queued');
      assert.is(await jobs.retryFailed([]), 0);
      assert.is((await jobs.stats()).failed, 1);
    } finally {
      await close();
    }
  });

  test('setPaused / isPaused: the pause is stored (with when) until resumed', async () => {
    const { jobs, close } = await open();
    try {
      assert.is(await jobs.isPaused(), null);
      const before = Date.now();
      await jobs.setPaused(true);
      const since = await jobs.isPaused();
      assert.ok(since && Date.parse(since) >= before - 1000, `paused since ${since}`);
      await jobs.setPaused(true);
      assert.ok(await jobs.isPaused(), 'pausing twice keeps it paused');
      await jobs.setPaused(false);
      assert.is(await jobs.isPaused(), null);
      await jobs.setPaused(false);
      assert.is(await jobs.isPaused(), null);
    } finally {
      await close();
    }
  });

  test('cancel and cancelByKey: queued and running jobs; a running one loses its lease', async () => {
    const { jobs, close } = await open();
    try {
      const queued = await jobs.enqueue({ type: 'ingest', payload: {}, key: 'q', priority: 5 });
      const running = await jobs.enqueue({ type: 'ingest', payload: {}, key: 'r' });
      await jobs.claim('A', null, LEASE);
      assert.is(await jobs.cancelByKey('ingest', 'q'), 1);
      assert.is(await jobs.cancelByKey('ingest', 'q'), 0);
      assert.is(await jobs.cancelByKey('reindex', 'r'), 0, 'other type');
      assert.ok(await jobs.cancel(running.id));
      assert.is(await jobs.heartbeat(running.id, 'A', LEASE), false);
      assert.is(await jobs.complete(running.id, 'A'), false);
      assert.is((await jobs.get(queued.id))?.status, 'cancelled');
      assert.is((await jobs.get(running.id))?.status, 'cancelled');
      assert.is(await jobs.claim('A', null, LEASE), null);
      assert.not.equal((await jobs.enqueue({ type: 'ingest', payload: {}, key: 'q' })).id, queued.id, 'key free again');
    } finally {
      await close();
    }
  });

  test('list (newest first, by status/type), stats and prune', async () => {
    const { jobs, close } = await open();
    try {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await jobs.enqueue({ type: i % 2 ? 'b' : 'a', payload: { i } })).id);
      await jobs.enqueue({ type: 'a', payload: {}, runAfter: new Date(Date.now() + 60_000).toISOString() });
      const c1 = await jobs.claim('w', null, LEASE);
      await jobs.complete(c1!.id, 'w');
      const c2 = await jobs.claim('w', null, LEASE);
      await jobs.fail(c2!.id, 'w', 'nope', null);
      await jobs.claim('w', null, LEASE);

      const all = await jobs.list({ limit: 3 });
      assert.is(all.total, 6);
      assert.equal(
        all.items.map((j) => j.id),
        [ids[4] + 1, ids[4], ids[3]],
      );
      const page2 = await jobs.list({ limit: 3, offset: 3 });
      assert.equal(
        page2.items.map((j) => j.id),
        [ids[2], ids[1], ids[0]],
      );
      const failed = await jobs.list({ status: 'failed', limit: 10 });
      assert.equal(
        failed.items.map((j) => [j.id, j.lastError]),
        [[c2!.id, 'nope']],
      );
      assert.is((await jobs.list({ status: 'queued', type: 'a', limit: 10 })).total, 2);

      const stats = await jobs.stats();
      assert.equal(
        {
          queued: stats.queued,
          running: stats.running,
          succeeded: stats.succeeded,
          failed: stats.failed,
          cancelled: stats.cancelled,
        },
        { queued: 3, running: 1, succeeded: 1, failed: 1, cancelled: 0 },
      );
      assert.is(stats.delayed, 1);
      assert.ok(stats.oldestQueuedAt);
      assert.equal(stats.byType.a, { queued: 2, running: 1, succeeded: 1, failed: 0, cancelled: 0 });
      assert.equal(stats.byType.b, { queued: 1, running: 0, succeeded: 0, failed: 1, cancelled: 0 });

      assert.is(await jobs.prune(new Date(Date.now() - 60_000).toISOString()), 0, 'too recent');
      assert.is(await jobs.prune(new Date(Date.now() + 1000).toISOString()), 1, 'the succeeded one');
      assert.is(await jobs.get(c1!.id), null);
      assert.ok(await jobs.get(c2!.id), 'failed jobs are kept');
    } finally {
      await close();
    }
  });

  test('invalid input is refused with invalid_input', async () => {
    const { jobs, close } = await open();
    try {
      for (const bad of [
        { type: '', payload: {} },
        { type: 't', payload: {}, priority: 1.5 },
        { type: 't', payload: {}, maxAttempts: 0 },
      ]) {
        let error: unknown;
        try {
          await jobs.enqueue(bad);
        } catch (err) {
          error = err;
        }
        assert.instance(error, DomainError, JSON.stringify(bad));
        assert.is((error as DomainError).code, 'invalid_input');
      }
    } finally {
      await close();
    }
  });

  test("claim order 'newest': the latest of the most urgent priority due; reports: recent runs, active keys, several types", async () => {
    const { jobs, close } = await open();
    try {
      const base = new Date();
      const a = await jobs.enqueue({ type: 'p1', payload: {}, key: 'a', runAfter: at(base, -3000).toISOString() });
      const b = await jobs.enqueue({ type: 'p2', payload: {}, key: 'b', runAfter: at(base, -2000).toISOString() });
      await jobs.enqueue({ type: 'p1', payload: {}, key: 'later', runAfter: at(base, 60_000).toISOString() });
      await jobs.enqueue({ type: 'p3', payload: {}, key: 'c', priority: 5, runAfter: at(base, -1000).toISOString() });
      const first = await jobs.claim('w', ['p1', 'p2', 'p3'], LEASE, base, 'newest');
      assert.is(first!.id, b.id, 'the newest due of priority 0, not the later one nor the priority-5 one');
      assert.is((await jobs.claim('w', ['p1', 'p2', 'p3'], LEASE, base, 'newest'))!.id, a.id);
      assert.equal([...(await jobs.activeKeys(['p1', 'p2'], ['a', 'b', 'c', 'x']))].sort(), ['a', 'b']);
      assert.equal(await jobs.activeKeys([], ['a']), new Set());
      assert.is((await jobs.list({ type: ['p1', 'p2'], limit: 10 })).total, 3);
      assert.is((await jobs.list({ type: 'p3', limit: 10 })).total, 1);
      assert.equal(await jobs.recentRuns('p2', 10), []);
      assert.ok(await jobs.complete(b.id, first!.leaseOwner!));
      const runs = await jobs.recentRuns('p2', 10);
      assert.is(runs.length, 1);
      assert.ok(runs[0].startedAt <= runs[0].finishedAt);
    } finally {
      await close();
    }
  });

  test.run();

  test('runningLeaseOwners; expireLeases ends only the named owners’ running leases', async () => {
    const { jobs, close } = await open();
    try {
      for (let i = 0; i < 3; i++) await jobs.enqueue({ type: 't', payload: { i } });
      const a1 = await jobs.claim('a', null, LEASE);
      const a2 = await jobs.claim('a', null, LEASE);
      const b = await jobs.claim('b', null, LEASE);
      assert.equal((await jobs.runningLeaseOwners()).sort(), ['a', 'b']);
      assert.is(await jobs.expireLeases([]), 0);
      assert.is(await jobs.expireLeases(['a', 'nobody']), 2);
      assert.is(await jobs.expireLeases(['a']), 0, 'already expired');
      assert.is((await jobs.get(b!.id))?.leaseOwner, 'b');
      const again = await jobs.claim('c', null, LEASE);
      assert.ok(again && [a1!.id, a2!.id].includes(again.id), 'the next claim reclaims an expired one');
      assert.is(again.attempts, 2);
    } finally {
      await close();
    }
  });

  test.run();
}
