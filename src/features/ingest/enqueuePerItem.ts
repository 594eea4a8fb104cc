import type { Services } from '../kernel/services.js';

/**
 * Queues one job of `job.type` per item, page by page: `nextPage(after)` gives
 * the item ids after `after` in id order (empty when done). Jobs are keyed by
 * item, so an item already queued is not queued twice. Returns how many ids it saw.
 */
export async function enqueuePerItem(
  deps: Pick<Services, 'storage' | 'wakeJobs'>,
  job: { type: string; priority: number },
  nextPage: (after: string) => Promise<string[]>,
): Promise<number> {
  let after = '';
  let count = 0;
  for (;;) {
    const ids = await nextPage(after);
    if (ids.length === 0) return count;
    for (const id of ids)
      await deps.storage.jobs.enqueue({ type: job.type, payload: { mediaId: id }, key: id, priority: job.priority });
    count += ids.length;
    after = ids[ids.length - 1];
    deps.wakeJobs();
  }
}
