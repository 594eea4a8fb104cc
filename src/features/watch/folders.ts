/**
 * Configuring watched folders: an admin's through the API (list, add, remove per collection) and the
 * operator's WATCH_DIRS, applied at start.
 */
import { realpath } from 'node:fs/promises';
import { conflict, invalid, notFound } from '../../platform/errors.js';
import { newUuid, nowIso } from '../../platform/ids.js';
import type { Logger } from '../../platform/logger.js';
import type { WatchedFolder } from '../../storage/watchStore.js';
import { loadCollection } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import { checkAllowedDir, normaliseInto, parseWatchDirs } from './settings.js';

type Deps = Pick<Services, 'storage' | 'config' | 'watchesChanged'>;

/** A watched folder as the API shows it. */
export const presentWatch = (w: WatchedFolder) => ({
  id: w.id,
  datasetId: w.collectionId,
  path: w.dir,
  into: w.into,
  mirrorDeletions: w.mirrorDeletions,
  source: w.source,
  createdById: w.createdById,
  createdAt: w.createdAt,
});

export async function listWatches(deps: Deps, principal: Principal, collectionId: string) {
  const collection = await loadCollection(deps, principal, collectionId, 'admin');
  return (await deps.storage.watches.list(collection.id)).map(presentWatch);
}

export async function addWatch(
  deps: Deps,
  principal: Principal,
  collectionId: string,
  input: { path: string; into?: string; mirrorDeletions?: boolean },
) {
  const collection = await loadCollection(deps, principal, collectionId, 'admin');
  const dir = await checkAllowedDir(input.path, deps.config.watchRoots);
  const { folder, created } = await deps.storage.watches.add({
    id: newUuid(),
    collectionId: collection.id,
    organizationId: collection.organizationId,
    dir,
    into: normaliseInto(input.into),
    mirrorDeletions: input.mirrorDeletions === true,
    source: 'api',
    createdById: principal.userId,
    createdAt: nowIso(),
  });
  if (!created) throw conflict(`the collection already watches ${dir} (id ${folder.id})`);
  deps.watchesChanged?.();
  return presentWatch(folder);
}

export async function removeWatch(deps: Deps, principal: Principal, collectionId: string, watchId: string) {
  const collection = await loadCollection(deps, principal, collectionId, 'admin');
  const folder = await deps.storage.watches.get(watchId);
  if (!folder || folder.collectionId !== collection.id) throw notFound('watched folder not found');
  if (folder.source === 'env') throw conflict('this folder is set by WATCH_DIRS on the server; change that setting');
  await deps.storage.watches.remove(folder.id);
  deps.watchesChanged?.();
  return { deleted: true, id: folder.id };
}

/**
 * Makes the stored 'env' folders what WATCH_DIRS says now: adds new entries, updates changed ones, removes
 * those no longer listed (their items stay). An entry naming no collection is logged and left out.
 */
export async function applyEnvWatches(deps: Pick<Services, 'storage' | 'config'>, logger: Logger): Promise<void> {
  const wanted = parseWatchDirs(deps.config.watchDirs);
  const stored = (await deps.storage.watches.list()).filter((w) => w.source === 'env');
  const kept = new Set<string>();
  for (const entry of wanted) {
    const collection = await deps.storage.collections.get(entry.collectionId);
    if (!collection) {
      logger.error('WATCH_DIRS names no collection', { collectionId: entry.collectionId });
      continue;
    }
    const dir = await realpath(entry.dir).catch(() => entry.dir);
    const { folder } = await deps.storage.watches.add({
      id: newUuid(),
      collectionId: collection.id,
      organizationId: collection.organizationId,
      dir,
      into: entry.into,
      mirrorDeletions: entry.mirrorDeletions,
      source: 'env',
      createdById: collection.createdById,
      createdAt: nowIso(),
    });
    kept.add(folder.id);
    if (folder.into !== entry.into || folder.mirrorDeletions !== entry.mirrorDeletions)
      await deps.storage.watches.updateSettings(folder.id, entry);
  }
  for (const w of stored) if (!kept.has(w.id)) await deps.storage.watches.remove(w.id);
}

/** 400 unless the body's fields are usable (zod checked their types). */
export function checkWatchInput(input: { path: string }): void {
  if (!input.path.trim()) throw invalid('path is required');
}
