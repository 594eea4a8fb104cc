/**
 * The trash of a collection (issue #27): what `DELETE /api/media/{id}` took (an item with its versions, a
 * folder with its subtree: one entry each), listed newest deletion first with when, by whom and where it was;
 * restored where it was, or purged for good by the `trash-purge` job (trashJobs.ts), on request or
 * TRASH_RETENTION_DAYS after the delete.
 */
import { invalid, notFound } from '../../platform/errors.js';
import type { TrashEntry } from '../../storage/trash.js';
import { loadCollection } from '../kernel/access.js';
import { presentMany } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';
import { enqueuePurge } from './trashJobs.js';

/** Most entries named in one restore or purge. */
export const TRASH_MAX_IDS = 500;

type TrashDeps = Pick<Services, 'storage' | 'urls'>;

/** GET /api/dataset/{id}/trash: one page of entries, newest deletion first. */
export async function listTrash(
  deps: TrashDeps,
  principal: Principal,
  collectionId: string,
  page: { limit: number; offset: number },
) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  const { entries, total } = await deps.storage.media.listTrash(collection.id, page);
  const users = new Map<string, string | null>();
  for (const id of new Set(entries.map((e) => e.deletedById)))
    users.set(id, (await deps.storage.accounts.getUser(id))?.name ?? null);
  const media = await presentMany(
    deps,
    entries.map((e) => e.item),
  );
  return {
    entries: entries.map((e, i) => ({
      id: e.id,
      name: e.item.name,
      type: e.item.type,
      deletedAt: e.deletedAt,
      deletedBy: { id: e.deletedById, name: users.get(e.deletedById) ?? null },
      location: e.location,
      // The rows the entry holds: the item's versions, or the folder with everything beneath it.
      itemCount: e.rowCount,
      // Its frames are deleted with it: the thumbnail is read from the entry, not from active frames.
      media: { ...media[i], thumbnailUrl: e.thumbnailKey ? deps.urls.urlFor(e.thumbnailKey) : media[i].thumbnailUrl },
    })),
    pagination: { total, limit: page.limit, offset: page.offset, hasMore: page.offset + entries.length < total },
  };
}

/** The entries named, each of this collection; any other id (another collection's, another organization's) is a 404. */
async function entriesOf(deps: Pick<Services, 'storage'>, collectionId: string, ids: string[]): Promise<TrashEntry[]> {
  if (ids.length > TRASH_MAX_IDS) throw invalid(`name at most ${TRASH_MAX_IDS} entries at once`);
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  const found = (await deps.storage.media.trashEntries(wanted)).filter((e) => e.collectionId === collectionId);
  if (found.length !== wanted.length) throw notFound('trash entry not found');
  return found;
}

/** POST /api/dataset/{id}/trash/restore: the entries back where they were (folders on the way made again). */
export async function restoreTrash(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  collectionId: string,
  ids: string[],
) {
  const collection = await loadCollection(deps, principal, collectionId, 'member');
  const entries = await entriesOf(deps, collection.id, ids);
  return deps.storage.media.restore(entries.map((e) => e.id));
}

/**
 * POST /api/dataset/{id}/trash/purge: removes the named entries for good, or (no ids) every entry deleted
 * until now, through the durable `trash-purge` job; answers at once with the job.
 */
export async function purgeTrash(
  deps: Pick<Services, 'storage' | 'wakeJobs'>,
  principal: Principal,
  collectionId: string,
  ids: string[] | undefined,
) {
  const collection = await loadCollection(deps, principal, collectionId, 'member');
  const entries = ids ? await entriesOf(deps, collection.id, ids) : null;
  const job = await enqueuePurge(
    deps,
    entries
      ? { ids: entries.map((e) => e.id) }
      : { collectionId: collection.id, before: new Date(Date.now() + 1).toISOString() },
  );
  return { jobId: job.id, status: job.status, entries: entries ? entries.length : null };
}
