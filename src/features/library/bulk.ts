import { DomainError, invalid } from '../../platform/errors.js';
import type { BulkResult, NewBulkAction, TagEdit } from '../../storage/bulkStore.js';
import type { MediaSummary } from '../../storage/types.js';
import { isLtreePath, newUuid, pathLabel } from '../../platform/ids.js';
import { enqueueIngest, type JobQueueDeps } from '../ingest/index.js';
import { requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import type { SearchDeps } from '../search/index.js';
import { browseAllIds, type BrowseParams } from './browse.js';
import { rereadMetadata } from './rereadMetadata.js';

/** Most ids a request may list; a bigger selection is sent as a query (README "Bulk actions"). */
export const BULK_MAX_IDS = 10_000;
/** Most items one bulk action may change, ids or query. */
export const BULK_MAX_ITEMS = 1_000_000;
/** From this many items on, an action reports its progress on the event stream (job.progress, job `bulk`). */
export const BULK_PROGRESS_FROM = 1000;

export type BulkOperation =
  | { type: 'addTags'; tags: Array<{ label: string; value: string }> }
  | { type: 'removeTags'; tags: Array<{ label: string; value?: string }> }
  | { type: 'setTagGroup'; label: string; values: string[] }
  | { type: 'clearTagGroup'; label: string }
  | { type: 'move'; destinationPath: string }
  | { type: 'reprocess'; kind?: 'analysis' | 'metadata' }
  | { type: 'favorite' | 'unfavorite' | 'archive' | 'unarchive' | 'delete' | 'restore' };

export interface BulkInput {
  ids?: string[];
  selection?: { datasetId: string; query: Omit<BrowseParams, 'limit' | 'offset'> };
  exclude?: string[];
  operation: BulkOperation;
}

export interface ItemError {
  id: string;
  error: string;
  message: string;
}

export type BulkDeps = SearchDeps & JobQueueDeps & Pick<Services, 'config' | 'blobs'>;

const clean = (s: string, field: string) => {
  const v = s.trim();
  if (!v) throw invalid(`${field} must not be empty`);
  return v;
};

/** The operation's tag edit, labels and values trimmed; null for the operations that are not tag edits. */
export function tagEditOf(op: BulkOperation): TagEdit | null {
  switch (op.type) {
    case 'addTags':
      return {
        kind: 'add',
        tags: op.tags.map((t) => ({ group: clean(t.label, 'label'), value: clean(t.value, 'value') })),
      };
    case 'removeTags':
      return {
        kind: 'remove',
        tags: op.tags.map((t) => ({
          group: clean(t.label, 'label'),
          ...(t.value === undefined ? {} : { value: clean(t.value, 'value') }),
        })),
      };
    case 'setTagGroup':
      return { kind: 'setGroup', group: clean(op.label, 'label'), values: op.values.map((v) => clean(v, 'value')) };
    case 'clearTagGroup':
      return { kind: 'remove', tags: [{ group: clean(op.label, 'label') }] };
    default:
      return null;
  }
}

const NOT_FOUND = (id: string): ItemError => ({ id, error: 'not_found', message: 'media not found' });

/**
 * The selected items: the ids given (each one not found, in another organization or not live is a per-item
 * error, the same answer for all three) or every item browse lists for the query, less the exclusions.
 */
async function resolveSelection(
  deps: BulkDeps,
  principal: Principal,
  input: BulkInput,
  trashed = false,
): Promise<{ items: MediaSummary[]; errors: ItemError[] }> {
  if (!!input.ids === !!input.selection) throw invalid('give either ids or selection (a browse query), not both');
  const exclude = new Set((input.exclude ?? []).map((id) => id.trim().toLowerCase()));
  let ids: string[];
  const errors: ItemError[] = [];
  if (input.ids) {
    if (input.ids.length > BULK_MAX_IDS)
      throw invalid(`at most ${BULK_MAX_IDS} ids; send a larger selection as a query`);
    ids = [...new Set(input.ids.map((id) => id.trim().toLowerCase()))];
  } else {
    const { datasetId, query } = input.selection!;
    const found = await browseAllIds(deps, principal, datasetId, { ...query, limit: 1, offset: 0 }, BULK_MAX_ITEMS + 1);
    if (found.ids.length > BULK_MAX_ITEMS) throw invalid(`the selection holds more than ${BULK_MAX_ITEMS} items`);
    ids = found.ids;
  }
  ids = ids.filter((id) => !exclude.has(id));
  // Summaries (a narrow read) and each collection's organization, looked up once.
  const orgOf = new Map<string, string | null>();
  const items: MediaSummary[] = [];
  for (let i = 0; i < ids.length; i += 5000) {
    const chunk = ids.slice(i, i + 5000);
    const found = await deps.storage.media.summaries(chunk.filter((id) => /^[0-9a-f]{32}$/.test(id)));
    for (const m of found)
      if (!orgOf.has(m.collectionId))
        orgOf.set(m.collectionId, (await deps.storage.collections.get(m.collectionId))?.organizationId ?? null);
    const byId = new Map(found.map((m) => [m.id, m]));
    for (const id of chunk) {
      const m = byId.get(id);
      // Restore takes items in the trash; every other operation live ones.
      if (!m || orgOf.get(m.collectionId) !== principal.organizationId || (m.status === 'active') === trashed)
        errors.push(NOT_FOUND(id));
      else items.push(m);
    }
  }
  return { items, errors };
}

/** Items a move cannot take (another collection, a folder into itself) become per-item errors. */
async function checkMove(deps: BulkDeps, items: MediaSummary[], destinationPath: string) {
  const dest = destinationPath.trim().toLowerCase();
  if (!isLtreePath(dest)) throw invalid('destinationPath must be an ltree path taken from a returned path value');
  const rootLabel = dest.split('.')[0];
  if (dest !== rootLabel) {
    const folder = await deps.storage.media.get(dest.split('.').pop()!);
    if (!folder || folder.status !== 'active' || folder.type !== 'folder' || folder.path !== dest) {
      throw invalid('destinationPath is not an existing folder');
    }
  }
  const folders = items.filter((m) => m.type === 'folder').map((m) => m.id);
  const pathOf = new Map((await deps.storage.media.getMany(folders)).map((m) => [m.id, m.path]));
  const ok: MediaSummary[] = [];
  const errors: ItemError[] = [];
  for (const m of items) {
    const path = pathOf.get(m.id);
    if (pathLabel(m.collectionId) !== rootLabel)
      errors.push({ id: m.id, error: 'invalid_input', message: 'the destination is in another collection' });
    else if (path && (dest === path || dest.startsWith(`${path}.`)))
      errors.push({ id: m.id, error: 'invalid_input', message: 'a folder cannot be moved into itself' });
    else ok.push(m);
  }
  return { dest, ok, errors };
}

/** A job.progress event of this action (job `bulk`), for selections of BULK_PROGRESS_FROM items or more. */
function progress(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  actionId: string,
  type: string,
  total: number,
) {
  return async (done: number) => {
    if (total < BULK_PROGRESS_FROM) return;
    await deps.storage.events.append({
      type: 'job.progress',
      organizationId: principal.organizationId,
      collectionId: null,
      mediaId: null,
      data: {
        job: 'bulk',
        jobType: 'bulk',
        actionId,
        operation: type,
        total,
        done,
        remaining: total - done,
        status: done >= total ? 'done' : 'running',
      },
    });
  };
}

const FLAGS = {
  favorite: { favorite: true },
  unfavorite: { favorite: false },
  archive: { archived: true },
  unarchive: { archived: false },
} as const;

/**
 * Favourite, archive (and their undoing), delete to the trash and restore from it: the bulk store records
 * exactly the items whose flag or state changed, so that the action can be undone like a tag edit or a move.
 */
async function trashOrFlag(
  deps: BulkDeps,
  action: NewBulkAction,
  type: 'favorite' | 'unfavorite' | 'archive' | 'unarchive' | 'delete' | 'restore',
  items: MediaSummary[],
): Promise<BulkResult> {
  const ids = items.map((m) => m.id);
  if (type === 'delete') return deps.storage.bulk.trash(action, ids);
  if (type === 'restore') return deps.storage.bulk.restore(action, ids);
  return deps.storage.bulk.setFlags(action, ids, FLAGS[type]);
}

/**
 * Reprocessing queues each item's analysis again, or (kind `metadata`) reads each item's metadata again with
 * ExifTool (rereadMetadata.ts); not undoable (`undoable: false`); folders are per-item errors.
 */
async function reprocessAll(
  deps: BulkDeps,
  principal: Principal,
  kind: 'analysis' | 'metadata',
  items: MediaSummary[],
  report: (done: number) => Promise<void>,
) {
  const errors: ItemError[] = [];
  let changed = 0;
  for (const [i, m] of items.entries()) {
    if (m.type === 'folder') {
      errors.push({ id: m.id, error: 'invalid_input', message: 'folders have nothing to analyse' });
      continue;
    }
    if (kind === 'metadata') {
      const failed = await rereadMetadata(deps, principal, m.id).then(
        () => null,
        (err: unknown) => (err instanceof DomainError ? err : Promise.reject(err)),
      );
      if (failed) errors.push({ id: m.id, error: failed.code, message: failed.message });
      else changed++;
      continue;
    }
    await deps.storage.media.setProcessingStatus(m.id, 'pending', null);
    await enqueueIngest(deps, m.id);
    changed++;
    if ((i + 1) % 1000 === 0) await report(i + 1);
  }
  return { changed, unchanged: 0, errors };
}

/**
 * POST /api/media/bulk: one operation on a selection. The checks come first (per-item errors, those items left
 * alone); the database part is then one transaction (all or nothing) recorded as the user's last action.
 */
export async function bulkAction(deps: BulkDeps, principal: Principal, input: BulkInput) {
  requireRole(principal, 'member');
  const op = input.operation;
  const edit = tagEditOf(op);
  const { items, errors } = await resolveSelection(deps, principal, input, op.type === 'restore');
  const action: NewBulkAction = {
    id: newUuid(),
    organizationId: principal.organizationId,
    userId: principal.userId,
    operation: { ...op },
  };
  const report = progress(deps, principal, action.id, op.type, items.length);
  await report(0);
  let result: BulkResult;
  let undoable = true;
  if (edit) {
    result = await deps.storage.bulk.editTags(
      action,
      items.map((m) => m.id),
      edit,
    );
  } else if (op.type === 'move') {
    const { dest, ok, errors: moveErrors } = await checkMove(deps, items, op.destinationPath);
    errors.push(...moveErrors);
    action.operation = { ...op, destinationPath: dest };
    result = await deps.storage.bulk.move(
      action,
      ok.map((m) => m.id),
      dest,
    );
  } else if (op.type !== 'reprocess') {
    result = await trashOrFlag(deps, action, op.type as keyof typeof FLAGS | 'delete' | 'restore', items);
  } else {
    const r = await reprocessAll(deps, principal, op.kind ?? 'analysis', items, report);
    errors.push(...r.errors);
    result = r;
    undoable = false;
  }
  await report(items.length);
  return {
    actionId: undoable && result.changed > 0 ? action.id : null,
    /** Reprocessing cannot be undone; every other operation can while it is the caller's last one. */
    undoable,
    operation: op.type,
    selected: items.length + errors.length,
    changed: result.changed,
    unchanged: result.unchanged,
    errorCount: errors.length,
    errors: errors.slice(0, 100),
  };
}

/** POST /api/media/bulk/{actionId}/undo. */
export async function undoBulkAction(deps: Pick<Services, 'storage'>, principal: Principal, actionId: string) {
  requireRole(principal, 'member');
  const { reverted } = await deps.storage.bulk.undo(
    actionId.trim().toLowerCase(),
    principal.organizationId,
    principal.userId,
  );
  return { actionId, reverted, undone: true };
}

/** GET /api/media/bulk/last: the caller's last bulk action (so a reloaded page can still offer Undo). */
export async function lastBulkAction(deps: Pick<Services, 'storage'>, principal: Principal) {
  const last = await deps.storage.bulk.last(principal.organizationId, principal.userId);
  return {
    action: last && {
      id: last.id,
      operation: last.operation,
      changedCount: last.changedCount,
      createdAt: last.createdAt,
      undoneAt: last.undoneAt,
      undoable: last.undoneAt === null,
    },
  };
}
