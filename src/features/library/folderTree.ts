import { pathLabel } from '../../platform/ids.js';
import { loadCollection } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import { resolveFolderPath } from './folders.js';

/** The most child folders one request of the folder tree returns. */
export const FOLDERS_MAX_LIMIT = 1000;

/** A folder on the way from the collection root to the listed folder (breadcrumbs). */
export interface FolderCrumb {
  id: string;
  name: string;
  path: string;
}

/**
 * One level of a collection's folder tree: the folders directly inside `path` (default the root) with
 * their counts, and the folders from the root down to `path` (breadcrumbs), so a client draws both from
 * one answer. Viewer role; another organization's collection answers 403 as browse does.
 */
export async function listFolders(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  collectionId: string,
  params: { path?: string; limit: number; offset: number },
) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  const path = await resolveFolderPath(deps, collection, params.path);
  const [{ folders, total }, ancestors] = await Promise.all([
    deps.storage.media.childFolders(path, { limit: params.limit, offset: params.offset }),
    crumbs(deps, path),
  ]);
  return {
    path,
    root: pathLabel(collection.id),
    ancestors,
    folders,
    pagination: { total, limit: params.limit, offset: params.offset, hasMore: params.offset + folders.length < total },
  };
}

/** The folders named by a path's labels after the root, root first (resolveFolderPath checked the last one). */
async function crumbs(deps: Pick<Services, 'storage'>, path: string): Promise<FolderCrumb[]> {
  const ids = path.split('.').slice(1);
  if (ids.length === 0) return [];
  const byId = new Map((await deps.storage.media.getMany(ids)).map((m) => [m.id, m]));
  return ids.flatMap((id) => {
    const m = byId.get(id);
    return m ? [{ id: m.id, name: m.name, path: m.path }] : [];
  });
}
