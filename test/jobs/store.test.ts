/**
 * The SQLite job store: the engine-neutral contract (./storeSuite.ts), then what only SQLite has: exclusive
 * claims across connections to one file, and the query plans of the hot statements.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Db } from '../../src/storage/sqlite/database.js';
import { openQueue, tempDir } from './helpers.js';
import { jobStoreSuite } from './storeSuite.js';

const tmp = tempDir('jobs-store-');

jobStoreSuite('sqlite', async () => {
  const { storage, jobs } = openQueue(tmp.file());
  return { jobs, close: () => storage.close() };
});

const test = suite('jobs: sqlite store only');
const LEASE = 60_000;

test('claims are exclusive across connections to the same file', async () => {
  const file = tmp.file();
  const a = openQueue(file);
  const b = openQueue(file);
  try {
    for (let i = 0; i < 20; i++) await a.jobs.enqueue({ type: 't', payload: { i } });
    const seen = new Set<number>();
    for (let i = 0; i < 10; i++) {
      for (const [q, owner] of [
        [a, 'A'],
        [b, 'B'],
      ] as const) {
        const job = await q.jobs.claim(owner, null, LEASE);
        assert.ok(job);
        assert.not.ok(seen.has(job.id), `job ${job.id} handed out twice`);
        seen.add(job.id);
      }
    }
    assert.is(await b.jobs.claim('B', null, LEASE), null);
    assert.is(seen.size, 20);
  } finally {
    await a.storage.close();
    await b.storage.close();
  }
});

/** The plan's detail lines. */
const planOf = (db: Db, sql: string, params: Record<string, unknown>): string[] =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as Array<{ detail: string }>).map((r) => r.detail);

test('query plans: the claim, reclaim and listing statements use their indexes', async () => {
  const { storage, db, jobs } = openQueue(tmp.file());
  try {
    for (let i = 0; i < 50; i++) await jobs.enqueue({ type: i % 2 ? 'a' : 'b', payload: {}, priority: i % 3 });
    db.exec('ANALYZE');
    const now = new Date().toISOString();
    const take = planOf(
      db,
      `SELECT id FROM jobs WHERE status = 'queued' AND run_after <= @now
      AND (@types IS NULL OR type IN (SELECT value FROM json_each(@types))) ORDER BY priority, run_after, id LIMIT 1`,
      { now, types: null },
    );
    assert.ok(
      take.some((d) => /jobs_claim/.test(d)),
      take.join('\n'),
    );
    assert.not.ok(
      take.some((d) => /TEMP B-TREE/.test(d)),
      `no sort: ${take.join('\n')}`,
    );
    const reclaim = planOf(
      db,
      `SELECT id FROM jobs WHERE status = 'running' AND lease_expires_at <= @now AND attempts < max_attempts
      ORDER BY priority, lease_expires_at, id LIMIT 1`,
      { now },
    );
    assert.ok(
      reclaim.some((d) => /jobs_leases/.test(d)),
      reclaim.join('\n'),
    );
    const list = planOf(db, `SELECT * FROM jobs WHERE status = @status ORDER BY id DESC LIMIT 10`, {
      status: 'failed',
    });
    assert.ok(
      list.some((d) => /jobs_by_status/.test(d)),
      list.join('\n'),
    );
    assert.not.ok(
      list.some((d) => /TEMP B-TREE/.test(d)),
      list.join('\n'),
    );
  } finally {
    await storage.close();
  }
});

test.run();
