/**
 * The duplicates section's event-loop rows (./duplicates.ts): the longest stall of the server's event loop while
 * a scan runs (perf_hooks monitorEventLoopDelay, 10 ms resolution), the scan job as it is (reading pages on the
 * event loop, quantising and grouping in a worker thread: index/vector/nearDuplicateThread.ts) beside the scan
 * as it was before (commit f13a1ba: one exact-groups query, pages of 500 vectors quantised on the event loop,
 * grouping there in 20 ms slices). The baseline is rebuilt here from the same parts; its grouping has the finer
 * checkpoints nearDuplicates.ts now has, so it stalls a little less than the old job did.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mergeGroups } from '../../src/features/duplicates/scanJob.js';
import { NearDuplicateScanner } from '../../src/index/vector/nearDuplicates.js';
import { EXACT_GROUPS_SQL, groupRows } from '../../src/storage/sqlite/duplicateStore.js';
import type { SqliteStorage } from '../../src/storage/sqlite/index.js';

/** The longest and the 99th-percentile event-loop delay (ms) while `fn` runs. */
export async function stallOf(fn: () => Promise<unknown>): Promise<{ max: number; p99: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  try {
    await fn();
  } finally {
    delay.disable();
  }
  return { max: delay.max / 1e6, p99: delay.percentile(99) / 1e6 };
}

/** The scan as the job ran it before the worker thread (see above); the number of groups stored. */
export async function scanOnEventLoop(st: SqliteStorage, collectionId: string, model: string, threshold: number) {
  const exact = groupRows(
    st.db.prepare(EXACT_GROUPS_SQL((k) => `@p${k}`)).all({ p1: collectionId, p2: 1 }) as Array<{
      blob_key: string;
      id: string;
    }>,
  );
  const ids: string[] = [];
  let scanner: NearDuplicateScanner | null = null;
  for (let after: string | null = null; ;) {
    const page = await st.duplicates.imageVectors(collectionId, model, after, 500);
    for (const row of page) {
      scanner ??= new NearDuplicateScanner(row.vector.length);
      scanner.add(row.vector);
      ids.push(row.mediaId);
    }
    if (page.length < 500) break;
    after = page[page.length - 1].key;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const near = scanner ? await scanner.groupsYielding(threshold) : [];
  const groups = mergeGroups(
    exact,
    near.map((g) => ({ mediaIds: g.members.map((i) => ids[i]), similarity: g.similarity })),
  );
  const at = new Date().toISOString();
  await st.duplicates.saveScan({ collectionId, modelId: model, threshold, items: ids.length, scannedAt: at }, groups);
  return groups.length;
}
