import type { Services } from '../kernel/services.js';

/**
 * Queues one job of `job.type` per item, page by page: `nextPage(after)` gives
 * the item ids after `after` in id order (empty when done). Jobs are keyed by
 * item, so an item already queued is not queued twice. Returns how many ids it
 * saw; `signal` stops it between pages (a shutdown during a long backfill).
 */
export async function enqueuePerItem(
  deps: Pick<Services, 'storage' | 'wakeJobs'>,
  job: { type: string; priority: number },
  nextPage: (after: string) => Promise<string[]>,
  signal?: AbortSignal,
): Promise<number> {
  let after = '';
  let count = 0;
  for (;;) {
    if (signal?.aborted) return count;
    const ids = await nextPage(after);
    if (ids.length === 0) return count;
    for (const id of ids)
      await deps.storage.jobs.enqueue({ type: job.type, payload: { mediaId: id }, key: id, priority: job.priority });
    count += ids.length;
    after = ids[ids.length - 1];
    deps.wakeJobs();
  }
}
