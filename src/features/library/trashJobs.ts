/**
 * The `trash-purge` job: removes trash entries for good (durable, leased, retried like every job; running
 * it twice does nothing more). Named entries (the trash screen's "delete forever"), every entry of a
 * collection deleted before a time ("empty trash"), or every entry of the server older than
 * TRASH_RETENTION_DAYS: startTrashSchedule looks hourly and queues a job only when some entry is that old.
 *
 * Crash safety, row first: the entries' rows go in one transaction (MediaStore.purgeTrash), then the files
 * no row references any more are removed. A crash in between leaves only unreferenced files, never a row
 * without its file; the start-up orphan sweep (app.ts sweepOrphanFiles, BlobStore.sweepOrphans) removes them,
 * and the integrity report lists them as untracked until then (features/backup/integrity.ts, repair.ts).
 * A blob another item still references (content-addressed: same bytes, one file) is kept.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Job } from '../../jobs/types.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { Services } from '../kernel/services.js';

export const TRASH_PURGE_JOB = 'trash-purge';
/** After uploads and analysis; a purge can wait. */
const PRIORITY_PURGE = 15;
/** Entries purged per transaction. */
const BATCH = 50;
/** A file written this recently may be an upload deduplicated onto it right now: the orphan sweep decides later. */
const FRESH_MS = 60_000;
const HOUR_MS = 3_600_000;

const ID = z.string().regex(/^[0-9a-f]{32}$/);
const payload = z.object({
  ids: z.array(ID).optional(),
  collectionId: z.string().optional(),
  before: z.string().optional(),
});
export type PurgePayload = z.infer<typeof payload>;

type PurgeDeps = Pick<Services, 'storage' | 'blobs' | 'config'>;

/** Queues a purge and wakes the runner. Keyed: the same request twice while one waits is one job. */
export async function enqueuePurge(deps: Pick<Services, 'storage' | 'wakeJobs'>, p: PurgePayload): Promise<Job> {
  const named = p.ids
    ? createHash('sha256')
        .update([...p.ids].sort().join(','))
        .digest('hex')
    : null;
  const key = named ? `ids:${named}` : `before:${p.collectionId ?? '*'}:${p.before}`;
  const job = await deps.storage.jobs.enqueue({
    type: TRASH_PURGE_JOB,
    payload: p,
    key,
    priority: PRIORITY_PURGE,
  });
  deps.wakeJobs?.();
  return job;
}

/** Removes entries for good: rows first (one transaction), then the files nothing references any more. */
export async function purgeEntries(deps: PurgeDeps, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { purged, blobKeys } = await deps.storage.media.purgeTrash(ids);
  const referenced = await deps.storage.media.referencedBlobKeys(blobKeys);
  for (const key of blobKeys) {
    if (referenced.has(key)) continue;
    const stat = await deps.blobs.stat(key);
    if (stat && Date.now() - stat.mtimeMs >= FRESH_MS) await deps.blobs.remove(key);
  }
  return purged;
}

/** Every entry deleted before `before` (of one collection, or of all), a batch at a time. */
async function purgeBefore(deps: PurgeDeps, before: string, collectionId: string | null): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = await deps.storage.media.trashBefore(before, collectionId, BATCH);
    if (ids.length === 0) return total;
    total += await purgeEntries(deps, ids);
  }
}

export function registerTrashJobs(runner: JobRunner, deps: PurgeDeps): void {
  runner.register<PurgePayload>(
    TRASH_PURGE_JOB,
    async (job, ctx) => {
      const p = job.payload;
      let purged = 0;
      if (p.ids)
        for (let i = 0; i < p.ids.length; i += BATCH) purged += await purgeEntries(deps, p.ids.slice(i, i + BATCH));
      else if (p.before) purged = await purgeBefore(deps, p.before, p.collectionId ?? null);
      if (purged) ctx.logger.info('purged trash entries', { count: purged });
    },
    { parse: (p) => payload.parse(p) },
  );
}

/**
 * The automatic purge (TRASH_RETENTION_DAYS, 0: off): now and every hour, a `trash-purge` job for the entries
 * older than the retention, queued only when there is one (the queue stays empty otherwise). Started with the
 * job runner; stop() on close.
 */
export function startTrashSchedule(deps: Pick<Services, 'storage' | 'wakeJobs' | 'config' | 'logger'>): {
  stop(): void;
} {
  const tick = async () => {
    const days = deps.config.trashRetentionDays;
    if (days <= 0) return;
    const before = new Date(Date.now() - days * 86_400_000).toISOString();
    if ((await deps.storage.media.trashBefore(before, null, 1)).length > 0) await enqueuePurge(deps, { before });
  };
  const run = () => void tick().catch((err) => deps.logger.warn('could not schedule the trash purge', { err }));
  run();
  const timer = setInterval(run, HOUR_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
