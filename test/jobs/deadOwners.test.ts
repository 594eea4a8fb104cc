/**
 * A starting runner reclaims at once the running jobs of a dead process on this
 * host (issue #16 item 7); a live process's leases, and another host's, run out
 * as usual. Also the owner parsing and the pid check on their own.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ownerIsDead, pidAlive, PROCESS_TOKEN } from '../../src/jobs/deadOwners.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { memoryLogger, openQueue, tempDir, waitFor } from './helpers.js';

const tmp = tempDir('jobs-dead-owners-');
const test = suite('jobs: dead lease holders');
const HOST = os.hostname();
const LEASE = 60_000;

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  assert.ok(r.pid && r.status === 0);
  assert.not.ok(pidAlive(r.pid!), 'the exited child is gone');
  return r.pid!;
}

test('pidAlive: ours and our parent are alive, an exited child is not; pid 1 is alive (EPERM counts)', () => {
  assert.ok(pidAlive(process.pid));
  assert.ok(pidAlive(process.ppid));
  assert.ok(pidAlive(1));
  deadPid();
});

test('ownerIsDead: same host and a gone pid, or our pid with another process token; never another host', () => {
  const dead = deadPid();
  assert.ok(ownerIsDead(`${HOST}:${dead}:abcd.ef01:3`));
  assert.not.ok(ownerIsDead(`${HOST}:${process.ppid}:abcd.ef01:3`), 'live pid');
  assert.not.ok(ownerIsDead(`other-host:${dead}:abcd.ef01:3`), 'another host');
  assert.ok(ownerIsDead(`${HOST}:${process.pid}:0000beef.ef01:1`), 'our pid, an earlier process (pid reuse)');
  assert.not.ok(ownerIsDead(`${HOST}:${process.pid}:${PROCESS_TOKEN}.ef01:1`), 'a runner of this very process');
  assert.not.ok(ownerIsDead('w'), 'a custom owner is never judged');
  assert.not.ok(ownerIsDead(`${HOST}:x:abcd:1`));
  assert.ok(ownerIsDead('host:with:colons:42:t.r:1', { hostname: 'host:with:colons', alive: () => false }));
});

test('a starting runner reclaims at once a dead pid’s jobs on this host; a live pid’s and another host’s wait', async () => {
  const { storage, jobs } = openQueue(tmp.file());
  const logger = memoryLogger();
  const runner = new JobRunner({ store: jobs, logger, pollMs: 10, leaseMs: LEASE });
  try {
    const owners = {
      dead: `${HOST}:${deadPid()}:aaaa.bbbb:1`,
      live: `${HOST}:${process.ppid}:aaaa.cccc:1`,
      otherHost: `elsewhere.example:${deadPid()}:aaaa.dddd:1`,
    };
    const held: Record<string, number> = {};
    for (const [name, owner] of Object.entries(owners)) {
      await jobs.enqueue({ type: 't', payload: { name } });
      const job = await jobs.claim(owner, null, LEASE);
      assert.ok(job);
      held[name] = job.id;
    }
    assert.equal((await jobs.runningLeaseOwners()).sort(), Object.values(owners).sort());
    const ran: string[] = [];
    runner.register<{ name: string }>('t', async (job) => {
      ran.push(job.payload.name);
    });
    const startedAt = Date.now();
    runner.start();
    await waitFor(async () => (await jobs.get(held.dead))?.status === 'succeeded', 3000, 'the dead pid’s job');
    assert.ok(Date.now() - startedAt < 3000, 'at once, not after the 60 s lease');
    await runner.idle();
    assert.equal(ran, ['dead']);
    const dead = await jobs.get(held.dead);
    assert.is(dead?.attempts, 2, 'reclaimed like an expired lease: attempts + 1');
    for (const name of ['live', 'otherHost'] as const) {
      const job = await jobs.get(held[name]);
      assert.is(job?.status, 'running', `${name}: still running`);
      assert.is(job?.leaseOwner, owners[name], `${name}: lease untouched`);
      assert.ok(Date.parse(job!.leaseExpiresAt!) > Date.now() + LEASE / 2, `${name}: lease not shortened`);
    }
    assert.ok(logger.lines.some((l) => l.msg === 'reclaiming the jobs of a dead process on this host'));
  } finally {
    await runner.stop({ graceMs: 1000 });
    await storage.close();
  }
});

test.run();
