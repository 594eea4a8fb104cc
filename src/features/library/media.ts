import { invalid, notFound } from '../../errors.js';
import { isLtreePath } from '../../ids.js';
import type { Metadata } from '../../storage/types.js';
import { loadMedia } from '../kernel/access.js';
import { presentMany, presentOne } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';
import { normalizeMetadata } from './tags.js';

export async function getMedia(s: Services, p: Principal, id: string) {
  return presentOne(s, await loadMedia(s, p, id, 'viewer'));
}

/** PATCH /api/media/{id}: rename and/or replace the whole metadata document (not merged). */
export async function updateMedia(
  s: Services,
  p: Principal,
  id: string,
  patch: { name?: string; metadata?: Metadata },
) {
  if (patch.name === undefined && patch.metadata === undefined) throw invalid('give name or metadata (or both)');
  if (patch.name !== undefined && !patch.name.trim()) throw invalid('name must not be empty');
  const media = await loadMedia(s, p, id, 'member');
  const updated = await s.storage.media.update(
    media.id,
    {
      name: patch.name?.trim(),
      metadata: patch.metadata === undefined ? undefined : normalizeMetadata(patch.metadata),
    },
    p.userId,
  );
  return updated;
}

export async function deleteMedia(s: Services, p: Principal, id: string) {
  const media = await loadMedia(s, p, id, 'member');
  const { deletedCount } = await s.storage.media.softDelete(media.id, p.userId);
  return { id: media.id, deletedCount };
}

/**
 * PATCH /api/media/{id}/move: the destination is a folder path (or the
 * collection root) of the same collection, taken from a returned `path`.
 */
export async function moveMedia(s: Services, p: Principal, id: string, destinationPath: string) {
  const media = await loadMedia(s, p, id, 'member');
  const dest = destinationPath.trim().toLowerCase();
  if (!isLtreePath(dest)) throw invalid('destinationPath must be an ltree path taken from a returned path value');
  const rootLabel = media.path.split('.')[0];
  if (dest.split('.')[0] !== rootLabel) throw invalid('destinationPath must be in the same collection');
  if (dest === media.path || dest.startsWith(`${media.path}.`)) {
    throw invalid('an item cannot be moved into itself or into one of its own subfolders');
  }
  if (dest !== rootLabel) {
    const folderId = dest.split('.').pop()!;
    const folder = await s.storage.media.get(folderId);
    if (!folder || folder.status !== 'active' || folder.type !== 'folder' || folder.path !== dest) {
      throw invalid('destinationPath is not an existing folder of this collection');
    }
  }
  const newPath = dest === media.parentPath ? media.path : await s.storage.media.move(media.id, dest, p.userId);
  return { id: media.id, newPath, success: true };
}

export async function listVersions(s: Services, p: Principal, id: string) {
  const media = await loadMedia(s, p, id, 'viewer');
  return presentMany(s, await s.storage.media.listVersions(media.rootId));
}

export async function deleteVersion(s: Services, p: Principal, rootId: string, versionId: string) {
  const media = await loadMedia(s, p, rootId, 'member');
  if (!/^[0-9a-f]{32}$/i.test(versionId)) throw invalid('versionId must be a media id');
  return s.storage.media.deleteVersion(media.rootId, versionId.toLowerCase(), p.userId);
}

export async function selectVersion(s: Services, p: Principal, versionId: string) {
  const media = await loadMedia(s, p, versionId, 'member');
  if (media.type === 'folder') throw notFound('folders have no versions');
  return presentOne(s, await s.storage.media.selectVersion(media.id, p.userId));
}
