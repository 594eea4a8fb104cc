/**
 * A full disk and the job queue (issue #29): a job that fails for want of space (ENOSPC, SQLITE_FULL) goes back
 * to the queue without spending an attempt and pauses the runner; nothing is claimed while the disk is full, and
 * the runner takes up by itself once it has room. What is and is not a full disk (isDiskFull): PostgreSQL's and
 * S3's own errors are not this machine's disk. And DiskSpace itself over a real file system: a pause below
 * MIN_FREE_BYTES, a pause reported by a failed write that lasts at least one look, ensureRoom's 507.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { throwIfDiskFull } from '../../src/features/ingest/ffmpegRun.js';
import { isPermanent } from '../../src/jobs/failures.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { DiskSpace, isDiskFull } from '../../src/platform/diskSpace.js';
import { DomainError } from '../../src/platform/errors.js';
import { memoryLogger, openQueue, sleep, tempDir, waitFor } from './helpers.js';

const tmp = tempDir('jobs-diskfull-');
const test = suite('jobs: a full disk');

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

test('isDiskFull: ENOSPC, EDQUOT, SQLITE_FULL and tools saying so; not PostgreSQL, S3 or other errors', () => {
  assert.ok(isDiskFull(enospc()));
  assert.ok(isDiskFull(Object.assign(new Error('quota'), { code: 'EDQUOT' })));
  assert.ok(isDiskFull(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })));
  assert.ok(isDiskFull(new Error('ffmpeg exited 1: av_interleaved_write_frame(): No space left on device')));
  assert.ok(isDiskFull(new Error('wrapped', { cause: enospc() })));
  assert.ok(isDiskFull(new DomainError('insufficient_storage', 'full')));
  // PostgreSQL's disk_full (53100) names the database server's disk, not DATA_DIR; S3's errors carry $metadata.
  assert.not.ok(
    isDiskFull(Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' })),
  );
  assert.not.ok(
    isDiskFull(Object.assign(new Error('No space left on device'), { $metadata: { httpStatusCode: 507 } })),
  );
  assert.not.ok(isDiskFull(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' })));
  assert.not.ok(isDiskFull(new DomainError('unavailable', 'No space left on device')));
  assert.not.ok(isDiskFull(null));
});

test('ffmpeg out of space is a full disk, not an undecodable video (which would fail the item for good)', () => {
  const lines = ['[image2 @ 0x55] Could not write frame: No space left on device', 'Conversion failed!'];
  const err = (() => {
    try {
      throwIfDiskFull(lines);
    } catch (e) {
      return e;
    }
  })();
  assert.instance(err, DomainError);
  assert.is((err as DomainError).code, 'insufficient_storage');
  assert.ok(isDiskFull(err));
  assert.not.ok(isPermanent(err));
  throwIfDiskFull(['Invalid data found when processing input']); // not a full disk: no throw
});

test('a job that hits a full disk is queued again, attempt refunded; nothing runs until there is room', async () => {
  const q = openQueue(tmp.file());
  const logger = memoryLogger();
  const disk = {
    full: false,
    reports: 0,
    reportFull() {
      this.full = true;
      this.reports++;
    },
  };
  const runner = new JobRunner({ store: q.jobs, logger, pollMs: 10, leaseMs: 5000, diskSpace: disk });
  let runs = 0;
  runner.register('write', async () => {
    runs++;
    if (runs === 1) throw enospc();
  });
  try {
    const job = await q.jobs.enqueue({ type: 'write', payload: {}, maxAttempts: 1 });
    runner.start();
    await waitFor(() => disk.reports === 1, 3000, 'the report');
    await waitFor(async () => (await q.jobs.get(job.id))?.status === 'queued', 3000, 'the release');
    const released = await q.jobs.get(job.id);
    assert.is(released!.attempts, 0, 'the attempt was spent');
    // Held: nothing is claimed while the disk is full, though the job is due.
    await sleep(200);
    assert.is(runs, 1);
    assert.is((await q.jobs.get(job.id))!.status, 'queued');
    assert.ok(logger.lines.some((l) => l.msg === 'job stopped: the disk is full; queued again'));
    assert.not.ok(logger.lines.some((l) => l.level === 'error'));
    // Room again: the runner takes it up by itself, and its one attempt is still there to succeed.
    disk.full = false;
    await waitFor(async () => (await q.jobs.get(job.id))?.status === 'succeeded', 3000, 'the resumed job');
    assert.is(runs, 2);
  } finally {
    await runner.stop({ graceMs: 1000, killMs: 500 });
    await q.storage.close();
  }
});

test('DiskSpace: pauses below MIN_FREE_BYTES, resumes with room, refuses what would not fit with a 507 code', async () => {
  const probe = new DiskSpace({ dir: tmp.dir, minFreeBytes: 0 });
  const free = (await probe.freeBytes())!;
  assert.ok(free > 0);
  // A reserve larger than the disk's free space: paused at the first look, with the reason.
  const tight = new DiskSpace({ dir: tmp.dir, minFreeBytes: free * 4, pollMs: 20 });
  const seen: boolean[] = [];
  tight.onChange((s) => seen.push(s.full));
  const state = await tight.check();
  assert.ok(state.full);
  assert.match(state.reason ?? '', /below MIN_FREE_BYTES/);
  assert.equal(seen, [true]);
  const refused = await tight.ensureRoom(10).catch((e: unknown) => e);
  assert.instance(refused, DomainError);
  assert.is((refused as DomainError).code, 'insufficient_storage');
  // A roomy disk: a reported failure pauses for at least one look, then the next look resumes.
  const roomy = new DiskSpace({ dir: tmp.dir, minFreeBytes: 1, pollMs: 100 });
  await roomy.ensureRoom(1000);
  await roomy.check();
  roomy.reportFull(enospc());
  assert.ok(roomy.full);
  assert.match(roomy.state().reason ?? '', /ENOSPC/);
  assert.ok((await roomy.check()).full, 'resumed at once, before a look after the failure');
  await sleep(120);
  assert.not.ok((await roomy.check()).full);
});

test.run();
