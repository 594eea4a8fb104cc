import { invalid, notFound } from '../../platform/errors.js';
import { isLtreePath } from '../../platform/ids.js';
import type { Metadata } from '../../storage/types.js';
import { loadMedia } from '../kernel/access.js';
import { presentMany, presentOne } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';
import { normalizeMetadata } from './tags.js';

export async function getMedia(deps: Pick<Services, 'storage' | 'urls'>, principal: Principal, id: string) {
  return presentOne(deps, await loadMedia(deps, principal, id, 'viewer'));
}

/**
 * PATCH /api/media/{id}: rename and/or replace the whole metadata document (not merged); ours: set the
 * favourite and archived flags (of the item with its versions).
 */
export async function updateMedia(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  id: string,
  patch: { name?: string; metadata?: Metadata; favorite?: boolean; archived?: boolean },
) {
  const flagged = patch.favorite !== undefined || patch.archived !== undefined;
  if (patch.name === undefined && patch.metadata === undefined && !flagged)
    throw invalid('give name, metadata, favorite or archived');
  if (patch.name !== undefined && !patch.name.trim()) throw invalid('name must not be empty');
  const media = await loadMedia(deps, principal, id, 'member');
  if (flagged) await deps.storage.media.setFlags([media.id], { favorite: patch.favorite, archived: patch.archived });
  if (patch.name === undefined && patch.metadata === undefined) return (await deps.storage.media.get(media.id))!;
  const updated = await deps.storage.media.update(
    media.id,
    {
      name: patch.name?.trim(),
      metadata: patch.metadata === undefined ? undefined : normalizeMetadata(patch.metadata),
    },
    principal.userId,
  );
  return updated;
}

export async function deleteMedia(deps: Pick<Services, 'storage'>, principal: Principal, id: string) {
  const media = await loadMedia(deps, principal, id, 'member');
  const { deletedCount } = await deps.storage.media.softDelete(media.id, principal.userId);
  return { id: media.id, deletedCount };
}

/**
 * PATCH /api/media/{id}/move: the destination is a folder path (or the
 * collection root) of the same collection, taken from a returned `path`.
 */
export async function moveMedia(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  id: string,
  destinationPath: string,
) {
  const media = await loadMedia(deps, principal, id, 'member');
  const dest = destinationPath.trim().toLowerCase();
  if (!isLtreePath(dest)) throw invalid('destinationPath must be an ltree path taken from a returned path value');
  const rootLabel = media.path.split('.')[0];
  if (dest.split('.')[0] !== rootLabel) throw invalid('destinationPath must be in the same collection');
  if (dest === media.path || dest.startsWith(`${media.path}.`)) {
    throw invalid('an item cannot be moved into itself or into one of its own subfolders');
  }
  if (dest !== rootLabel) {
    const folderId = dest.split('.').pop()!;
    const folder = await deps.storage.media.get(folderId);
    if (!folder || folder.status !== 'active' || folder.type !== 'folder' || folder.path !== dest) {
      throw invalid('destinationPath is not an existing folder of this collection');
    }
  }
  const newPath =
    dest === media.parentPath ? media.path : await deps.storage.media.move(media.id, dest, principal.userId);
  return { id: media.id, newPath, success: true };
}

export async function listVersions(deps: Pick<Services, 'storage' | 'urls'>, principal: Principal, id: string) {
  const media = await loadMedia(deps, principal, id, 'viewer');
  return presentMany(deps, await deps.storage.media.listVersions(media.rootId));
}

export async function deleteVersion(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  rootId: string,
  versionId: string,
) {
  const media = await loadMedia(deps, principal, rootId, 'member');
  if (!/^[0-9a-f]{32}$/i.test(versionId)) throw invalid('versionId must be a media id');
  return deps.storage.media.deleteVersion(media.rootId, versionId.toLowerCase(), principal.userId);
}

export async function selectVersion(deps: Pick<Services, 'storage' | 'urls'>, principal: Principal, versionId: string) {
  const media = await loadMedia(deps, principal, versionId, 'member');
  if (media.type === 'folder') throw notFound('folders have no versions');
  return presentOne(deps, await deps.storage.media.selectVersion(media.id, principal.userId));
}
