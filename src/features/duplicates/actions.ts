/**
 * What a member does with duplicates: start a scan, keep one item of a group and trash the rest (with the
 * others' tags, and the name or description they choose, merged into the kept one), or dismiss a group as
 * not duplicates so that it does not come back.
 */
import { invalid } from '../../platform/errors.js';
import { nowIso } from '../../platform/ids.js';
import type { Metadata } from '../../storage/types.js';
import { loadCollection, loadMedia } from '../kernel/access.js';
import { presentOne } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';
import { deleteMedia } from '../library/index.js';
import { DUPLICATES_SCAN_JOB, reportProgress, type ScanDeps } from './scanJob.js';

/** Queues the collection's scan (or returns the one already queued or running). */
export async function startScan(deps: ScanDeps & Pick<Services, 'wakeJobs'>, principal: Principal, datasetId: string) {
  const collection = await loadCollection(deps, principal, datasetId, 'member');
  const job = await deps.storage.jobs.enqueue({
    type: DUPLICATES_SCAN_JOB,
    payload: { collectionId: collection.id },
    key: collection.id,
    priority: 8,
    maxAttempts: 3,
  });
  deps.wakeJobs();
  reportProgress(deps, collection.organizationId);
  return { jobId: job.id, status: job.status };
}

/** The items of a request: distinct, live, in this collection (404 otherwise, as for any item). */
async function loadItems(deps: Pick<Services, 'storage'>, principal: Principal, collectionId: string, ids: string[]) {
  const items = [];
  for (const id of new Set(ids.map((i) => i.toLowerCase()))) {
    const m = await loadMedia(deps, principal, id, 'member');
    if (m.collectionId !== collectionId || !m.isCurrent || m.type === 'folder')
      throw invalid(`item ${id} is not an item of this collection`);
    items.push(m);
  }
  return items;
}

export interface ResolveInput {
  keepId: string;
  trashIds: string[];
  /** Add the trashed items' tags to the kept one (default true). */
  mergeTags: boolean;
  /** The name and description the kept item should have (chosen among the group's); absent: unchanged. */
  name?: string;
  description?: string;
}

export async function resolveGroup(
  deps: Pick<Services, 'storage' | 'urls'>,
  principal: Principal,
  datasetId: string,
  input: ResolveInput,
) {
  const collection = await loadCollection(deps, principal, datasetId, 'member');
  const [keep] = await loadItems(deps, principal, collection.id, [input.keepId]);
  const trash = await loadItems(deps, principal, collection.id, input.trashIds);
  if (trash.some((m) => m.id === keep.id)) throw invalid('keepId must not be among trashIds');
  if (trash.length === 0) throw invalid('trashIds must name at least one item');
  if (input.mergeTags || input.description !== undefined) {
    await deps.storage.media.mutateMetadata(keep.id, principal.userId, (metadata) => {
      const out: Metadata = { ...metadata };
      if (input.mergeTags) out.tags = mergeTags([metadata, ...trash.map((m) => m.metadata)]);
      if (input.description !== undefined) out.description = input.description;
      return out;
    });
  }
  if (input.name !== undefined && input.name !== keep.name)
    await deps.storage.media.update(keep.id, { name: input.name }, principal.userId);
  const trashed = [];
  for (const m of trash) trashed.push(await deleteMedia(deps, principal, m.id));
  const kept = await deps.storage.media.get(keep.id);
  return { kept: await presentOne(deps, kept!), trashed };
}

/** The union of the items' tags, group by group, values sorted and distinct. */
export function mergeTags(all: Metadata[]): Record<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const metadata of all) {
    const tags = metadata.tags;
    if (!tags || typeof tags !== 'object' || Array.isArray(tags)) continue;
    for (const [group, values] of Object.entries(tags)) {
      if (!Array.isArray(values)) continue;
      const set = out.get(group) ?? new Set<string>();
      for (const v of values) if (typeof v === 'string') set.add(v);
      out.set(group, set);
    }
  }
  return Object.fromEntries([...out].map(([g, set]) => [g, [...set].sort()]));
}

/** Marks the items as not duplicates of each other: a group made only of them is not listed again. */
export async function dismissGroup(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  datasetId: string,
  mediaIds: string[],
) {
  const collection = await loadCollection(deps, principal, datasetId, 'member');
  const items = await loadItems(deps, principal, collection.id, mediaIds);
  if (items.length < 2) throw invalid('mediaIds must name at least two items');
  await deps.storage.duplicates.dismiss(collection.id, {
    mediaIds: items.map((m) => m.id),
    dismissedById: principal.userId,
    dismissedAt: nowIso(),
  });
  return { dismissed: items.map((m) => m.id).sort() };
}
