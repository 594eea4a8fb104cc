/**
 * The `duplicates-scan` job: finds a collection's duplicate groups and stores them (storage.duplicates),
 * where the review page and GET /api/dataset/{id}/duplicates read them.
 *
 * A job rather than a computation per request or per upload: a near-duplicate pass reads every image's vector
 * and compares them all at once (index/vector/nearDuplicates.ts: seconds for 100k items, numbers in
 * docs/measurements/duplicates.md), which no request should wait for, and an incremental per-upload check
 * would need a k-NN query per new item and still miss pairs whose threshold changed with the model. The scan
 * is durable (a restart resumes it), one per collection at a time (keyed by it), and reports progress on the
 * event stream (`job.progress` named `duplicates`). What it stored stays valid as items go: the listing
 * drops trashed members and groups left with one.
 */
import { NearDuplicateThread } from '../../index/vector/nearDuplicateThread.js';
import type { JobRunner } from '../../jobs/runner.js';
import { nowIso } from '../../platform/ids.js';
import type { DuplicateGroupRecord } from '../../storage/duplicateStore.js';
import type { Services } from '../kernel/services.js';
import { z } from 'zod';

export const DUPLICATES_SCAN_JOB = 'duplicates-scan';
/** The scan's name in `job.progress` events. */
export const DUPLICATES_PROGRESS = 'duplicates';
/**
 * Vectors read a page: a few milliseconds of reading on the event loop on an idle core (the quantising is the
 * worker's), which gets a turn between pages (docs/measurements/duplicates.md).
 */
const PAGE = 100;

export type ScanDeps = Pick<Services, 'storage' | 'models'> & Partial<Pick<Services, 'events'>>;

const payload = z.object({ collectionId: z.string().uuid() });

export function registerDuplicateJobs(runner: JobRunner, deps: ScanDeps): void {
  runner.register<{ collectionId: string }>(
    DUPLICATES_SCAN_JOB,
    async (job, ctx) => {
      const collection = await deps.storage.collections.get(job.payload.collectionId);
      if (!collection) return; // gone since it was queued
      try {
        await scanDuplicates(deps, collection.id, { signal: ctx.signal, progress: (p) => ctx.progress(p) });
      } finally {
        reportProgress(deps, collection.organizationId);
      }
    },
    { parse: (p) => payload.parse(p), timeoutMs: 30 * 60_000 },
  );
}

/** The `job.progress` events of an organization's scans: how many are queued or running. */
export function reportProgress(deps: ScanDeps, organizationId: string): void {
  deps.events?.jobProgress(DUPLICATES_PROGRESS, DUPLICATES_SCAN_JOB, organizationId, async (orgId) => {
    const ids = (await deps.storage.collections.list(orgId)).map((c) => c.id);
    const active = await deps.storage.jobs.activeKeys([DUPLICATES_SCAN_JOB], ids);
    return { remaining: active.size, collections: [...active] };
  });
}

/**
 * Scans one collection: exact copies (same bytes) from the store, near duplicates from the current default
 * embedder's whole-frame vectors at the model's `nearDuplicate` cosine (a catalog fact; a model without one:
 * exact copies only). Groups that share an item merge; a group is `exact` when all its items share their
 * bytes. Replaces the collection's stored groups.
 */
export async function scanDuplicates(
  deps: ScanDeps,
  collectionId: string,
  ctx: { signal?: AbortSignal; progress?: (p: unknown) => Promise<void> } = {},
): Promise<{ items: number; groups: number }> {
  const info = deps.models.modelInfo();
  const threshold = info.task === 'embed' ? info.nearDuplicate : null;
  const exact = await deps.storage.duplicates.exactGroups(collectionId);
  const ids: string[] = [];
  // Quantising and grouping run in a worker thread; the event loop only reads pages and hands them over.
  let scanner: NearDuplicateThread | null = null;
  let near: Array<{ members: number[]; similarity: number }> = [];
  try {
    if (threshold !== null) {
      for (let after: string | null = null; ;) {
        if (ctx.signal?.aborted) throw ctx.signal.reason ?? new Error('aborted');
        const page = await deps.storage.duplicates.imageVectors(collectionId, info.id, after, PAGE);
        scanner ??= page.length ? new NearDuplicateThread(page[0].vector.length) : null;
        const rows = page.filter((row) => row.vector.length === scanner?.dims);
        scanner?.add(rows.map((row) => row.vector));
        for (const row of rows) ids.push(row.mediaId);
        if (page.length < PAGE) break;
        after = page[page.length - 1].key;
        // SQLite answers synchronously: without a macrotask turn the whole read would hold the event loop.
        await new Promise((resolve) => setImmediate(resolve));
        await ctx.progress?.({ collectionId, vectorsRead: ids.length });
      }
    }
    if (scanner && threshold !== null) near = await scanner.groups(threshold, ctx.signal);
  } finally {
    await scanner?.close();
  }
  const groups = mergeGroups(
    exact,
    near.map((g) => ({ mediaIds: g.members.map((i) => ids[i]), similarity: g.similarity })),
  );
  const items = new Set([...ids, ...exact.flat()]).size;
  await deps.storage.duplicates.saveScan(
    {
      collectionId,
      modelId: scanner ? info.id : null,
      threshold: scanner ? threshold : null,
      items,
      scannedAt: nowIso(),
    },
    groups,
  );
  await ctx.progress?.({ collectionId, vectorsRead: ids.length, groups: groups.length, done: true });
  return { items, groups: groups.length };
}

/** Exact and near groups joined where they share an item; exact ones (all one blob) first, then biggest. */
export function mergeGroups(
  exact: string[][],
  near: Array<{ mediaIds: string[]; similarity: number }>,
): DuplicateGroupRecord[] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const weakest = new Map<string, number>();
  const join = (group: string[], similarity: number) => {
    for (const id of group) if (!parent.has(id)) parent.set(id, id);
    const root = find(group[0]);
    let low = Math.min(similarity, weakest.get(root) ?? 1);
    for (const id of group.slice(1)) {
      const r = find(id);
      if (r === root) continue;
      low = Math.min(low, weakest.get(r) ?? 1);
      parent.set(r, root);
    }
    weakest.set(root, low);
  };
  const exactOf = new Map<string, number>();
  exact.forEach((g, i) => {
    join(g, 1);
    for (const id of g) exactOf.set(id, i);
  });
  for (const g of near) join(g.mediaIds, g.similarity);
  const byRoot = new Map<string, string[]>();
  for (const id of parent.keys()) byRoot.set(find(id), [...(byRoot.get(find(id)) ?? []), id]);
  const out: DuplicateGroupRecord[] = [];
  for (const [root, members] of byRoot) {
    if (members.length < 2) continue;
    const first = exactOf.get(members[0]);
    const allExact = first !== undefined && members.every((id) => exactOf.get(id) === first);
    out.push({
      kind: allExact ? 'exact' : 'near',
      similarity: allExact ? 1 : weakest.get(root)!,
      mediaIds: members.sort(),
    });
  }
  const rank = (g: DuplicateGroupRecord) => (g.kind === 'exact' ? 0 : 1);
  return out.sort(
    (a, b) => rank(a) - rank(b) || b.mediaIds.length - a.mediaIds.length || (a.mediaIds[0] < b.mediaIds[0] ? -1 : 1),
  );
}
