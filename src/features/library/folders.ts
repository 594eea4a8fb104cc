import { invalid, notFound } from '../../platform/errors.js';
import { isLtreePath, newMediaId, pathLabel } from '../../platform/ids.js';
import type { Collection, MediaRecord, Metadata } from '../../storage/types.js';
import { loadCollection, loadMedia } from '../kernel/access.js';
import { deleteMedia, updateMedia } from './media.js';
import { presentOne } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';

/**
 * Checks that `path` is the collection root or an active folder of the
 * collection and returns it normalised; `undefined` means the root.
 */
export async function resolveFolderPath(
  deps: Pick<Services, 'storage'>,
  collection: Collection,
  path: string | undefined,
  field = 'path',
): Promise<string> {
  const root = pathLabel(collection.id);
  if (path === undefined || path.trim() === '') return root;
  const p = path.trim().toLowerCase();
  if (!isLtreePath(p)) throw invalid(`${field} must be an ltree path such as a returned folder's path`);
  if (p.split('.')[0] !== root) throw invalid(`${field} belongs to another collection`);
  if (p === root) return root;
  const folder = await deps.storage.media.get(p.split('.').pop()!);
  if (!folder || folder.status !== 'active' || folder.type !== 'folder' || folder.path !== p) {
    throw notFound(`no folder at ${field} ${p}`);
  }
  return p;
}

export async function createFolder(
  deps: Pick<Services, 'storage' | 'urls'>,
  principal: Principal,
  input: { collectionId: string; name: string; path?: string; reuse?: boolean },
) {
  const collection = await loadCollection(deps, principal, input.collectionId, 'admin');
  const name = input.name.trim();
  if (!name) throw invalid('name must not be empty');
  if (name.length > 255) throw invalid('name must be at most 255 characters');
  const parentPath = await resolveFolderPath(deps, collection, input.path);
  const { folder } = await deps.storage.media.insertFolder(
    {
      id: newMediaId(),
      collectionId: collection.id,
      organizationId: collection.organizationId,
      parentPath,
      type: 'folder',
      name,
      blobKey: null,
      mimeType: null,
      width: null,
      height: null,
      duration: null,
      sizeBytes: 0,
      exif: {},
      metadata: {},
      processingStatus: 'ready',
      createdById: principal.userId,
    },
    input.reuse === true,
  );
  return presentOne(deps, folder);
}

async function loadFolder(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  id: string,
  need: 'viewer' | 'member',
): Promise<MediaRecord> {
  const folder = await loadMedia(deps, principal, id, need);
  if (folder.type !== 'folder') throw notFound('folder not found');
  return folder;
}

export async function getFolder(deps: Pick<Services, 'storage' | 'urls'>, principal: Principal, id: string) {
  return presentOne(deps, await loadFolder(deps, principal, id, 'viewer'));
}

export async function updateFolder(
  deps: Pick<Services, 'storage' | 'urls'>,
  principal: Principal,
  id: string,
  patch: { name?: string; metadata?: Metadata },
) {
  const folder = await loadFolder(deps, principal, id, 'member');
  return presentOne(deps, await updateMedia(deps, principal, folder.id, patch));
}

export async function deleteFolder(deps: Pick<Services, 'storage'>, principal: Principal, id: string) {
  const folder = await loadFolder(deps, principal, id, 'member');
  return deleteMedia(deps, principal, folder.id);
}
