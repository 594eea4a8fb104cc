/**
 * The `trash-purge` job: removes trash entries for good (durable, leased, retried like every job; running
 * it twice does nothing more). Named entries (the trash screen's "delete forever"), every entry of a
 * collection deleted before a time ("empty trash"), or, on its hourly schedule, every entry of the server
 * older than TRASH_RETENTION_DAYS.
 *
 * Crash safety, row first: the entries' rows go in one transaction (MediaStore.purgeTrash), then the files
 * no row references any more are removed. A crash in between leaves only unreferenced files, never a row
 * without its file; the start-up orphan sweep (app.ts sweepOrphanFiles, BlobStore.sweepOrphans) removes them,
 * and the integrity report lists them as untracked until then (features/backup/integrity.ts, repair.ts).
 * A blob another item still references (content-addressed: same bytes, one file) is kept.
 */
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
  /** The hourly purge of entries older than the retention (queues the next hour's run when done). */
  scheduled: z.boolean().optional(),
});
export type PurgePayload = z.infer<typeof payload>;

type PurgeDeps = Pick<Services, 'storage' | 'blobs' | 'config'>;

/** Queues a purge and wakes the runner. Keyed: the same request twice while one waits is one job. */
export async function enqueuePurge(
  deps: Pick<Services, 'storage' | 'wakeJobs'>,
  p: PurgePayload,
  runAfter?: string,
): Promise<Job> {
  const key = p.scheduled
    ? `scheduled:${runAfter ?? ''}`
    : p.ids
      ? `ids:${[...p.ids].sort().join(',')}`
      : `all:${p.collectionId}:${p.before}`;
  const job = await deps.storage.jobs.enqueue({
    type: TRASH_PURGE_JOB,
    payload: p,
    key: key.slice(0, 500),
    priority: PRIORITY_PURGE,
    ...(runAfter ? { runAfter } : {}),
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

/** The start of the next hour (the scheduled purge's key and run time). */
const nextHour = (now = Date.now()) => new Date(Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS).toISOString();

export function registerTrashJobs(runner: JobRunner, deps: PurgeDeps & Pick<Services, 'wakeJobs' | 'logger'>): void {
  runner.register<PurgePayload>(
    TRASH_PURGE_JOB,
    async (job, ctx) => {
      const p = job.payload;
      let purged = 0;
      if (p.ids)
        for (let i = 0; i < p.ids.length; i += BATCH) purged += await purgeEntries(deps, p.ids.slice(i, i + BATCH));
      else if (p.before && p.collectionId) purged = await purgeBefore(deps, p.before, p.collectionId);
      else if (p.scheduled) {
        const days = deps.config.trashRetentionDays;
        if (days > 0) purged = await purgeBefore(deps, new Date(Date.now() - days * 86_400_000).toISOString(), null);
        await enqueuePurge(deps, { scheduled: true }, nextHour());
      }
      if (purged) ctx.logger.info('purged trash entries', { count: purged });
    },
    { parse: (p) => payload.parse(p) },
  );
  // The first scheduled run now; each queues the next hour's (keyed by its hour, so never twice).
  const thisHour = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS).toISOString();
  void enqueuePurge(deps, { scheduled: true }, thisHour).catch((err) =>
    deps.logger.warn('could not schedule the trash purge', { err }),
  );
}
