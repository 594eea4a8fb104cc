import { invalid, notFound } from '../../platform/errors.js';
import { newUuid, nowIso } from '../../platform/ids.js';
import type { Album } from '../../storage/shareStore.js';
import type { MediaRecord } from '../../storage/types.js';
import { loadCollection, requireInOrganization, requireRole } from '../kernel/access.js';
import { presentMany } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';

type Deps = Pick<Services, 'storage'>;
/** The most item ids one request may name. */
export const ALBUM_BATCH_MAX = 1000;

export const presentAlbum = (a: Album) => ({
  id: a.id,
  datasetId: a.collectionId,
  name: a.name,
  coverMediaId: a.coverMediaId,
  itemCount: a.itemCount,
  createdById: a.createdById,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

function albumName(raw: string): string {
  const name = raw.trim();
  if (!name || name.length > 200) throw invalid('name must be 1 to 200 characters');
  return name;
}

/** An album of the caller's organization (404 otherwise, as for an id that exists nowhere), with the role. */
export async function loadAlbum(deps: Deps, principal: Principal, rawId: string, need: 'viewer' | 'member') {
  const album = /^[0-9a-f-]{36}$/i.test(rawId) ? await deps.storage.albums.get(rawId.toLowerCase()) : null;
  const found = requireInOrganization(principal, album, 'album not found');
  requireRole(principal, need);
  return found;
}

/**
 * The root ids of items a client named: each must be a live item (not a folder) of the album's collection;
 * any other id answers 404 naming it, so nothing outside the collection can be put in.
 */
export async function rootIdsOf(deps: Deps, collectionId: string, ids: string[]): Promise<string[]> {
  if (ids.length > ALBUM_BATCH_MAX) throw invalid(`at most ${ALBUM_BATCH_MAX} mediaIds at once`);
  const wanted = ids.map((id) => id.toLowerCase());
  const bad = wanted.find((id) => !/^[0-9a-f]{32}$/.test(id));
  if (bad !== undefined) throw notFound(`media not found: ${bad}`);
  const byId = new Map((await deps.storage.media.getMany(wanted)).map((m) => [m.id, m]));
  return wanted.map((id) => {
    const m = byId.get(id);
    if (!m || m.status !== 'active' || m.collectionId !== collectionId || m.type === 'folder')
      throw notFound(`media not found: ${id}`);
    return m.rootId;
  });
}

export async function createAlbum(
  deps: Deps,
  principal: Principal,
  collectionId: string,
  input: { name: string; mediaIds?: string[] },
) {
  const collection = await loadCollection(deps, principal, collectionId, 'member');
  const rootIds = await rootIdsOf(deps, collection.id, input.mediaIds ?? []);
  const album = await deps.storage.albums.create(
    {
      id: newUuid(),
      collectionId: collection.id,
      organizationId: collection.organizationId,
      name: albumName(input.name),
      createdById: principal.userId,
      createdAt: nowIso(),
    },
    rootIds,
  );
  return presentAlbum(album);
}

export async function listAlbums(deps: Deps, principal: Principal, collectionId: string) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  return { albums: (await deps.storage.albums.list(collection.id)).map(presentAlbum) };
}

export async function updateAlbum(
  deps: Deps,
  principal: Principal,
  albumId: string,
  patch: { name?: string; coverMediaId?: string | null },
) {
  const album = await loadAlbum(deps, principal, albumId, 'member');
  let cover: string | null | undefined = undefined;
  if (patch.coverMediaId !== undefined && patch.coverMediaId !== null) {
    [cover] = await rootIdsOf(deps, album.collectionId, [patch.coverMediaId]);
    if (!(await deps.storage.albums.holds(album.id, cover))) throw invalid('the cover must be an item of the album');
  } else if (patch.coverMediaId === null) cover = null;
  const name = patch.name === undefined ? undefined : albumName(patch.name);
  const updated = await deps.storage.albums.update(album.id, { name, coverMediaId: cover }, nowIso());
  if (!updated) throw notFound('album not found');
  return presentAlbum(updated);
}

export async function deleteAlbum(deps: Deps, principal: Principal, albumId: string) {
  const album = await loadAlbum(deps, principal, albumId, 'member');
  await deps.storage.albums.remove(album.id);
  return { deleted: true };
}

/** Adds, removes or puts first (reorder) the named items; answers the album as it is after. */
export async function changeAlbumItems(
  deps: Deps,
  principal: Principal,
  albumId: string,
  change: 'add' | 'remove' | 'reorder',
  mediaIds: string[],
) {
  const album = await loadAlbum(deps, principal, albumId, 'member');
  const at = nowIso();
  let changed = 0;
  if (change === 'add') {
    changed = await deps.storage.albums.addItems(album.id, await rootIdsOf(deps, album.collectionId, mediaIds), at);
  } else {
    if (mediaIds.length > ALBUM_BATCH_MAX) throw invalid(`at most ${ALBUM_BATCH_MAX} mediaIds at once`);
    // Removing or ordering takes root ids or current ids alike: resolve what is known, keep the rest as given.
    const known = new Map(
      (await deps.storage.media.getMany(mediaIds.map((id) => id.toLowerCase()))).map((m) => [m.id, m.rootId]),
    );
    const roots = mediaIds.map((id) => known.get(id.toLowerCase()) ?? id.toLowerCase());
    if (change === 'remove') changed = await deps.storage.albums.removeItems(album.id, roots, at);
    else await deps.storage.albums.reorder(album.id, roots, at);
  }
  return { changed, album: presentAlbum((await deps.storage.albums.get(album.id))!) };
}

/** GET /api/albums/:albumId/media: the album's live items in its order, one page. */
export async function albumMedia(
  deps: Pick<Services, 'storage' | 'urls'>,
  principal: Principal,
  albumId: string,
  page: { limit: number; offset: number },
) {
  const album = await loadAlbum(deps, principal, albumId, 'viewer');
  const { ids, total } = await deps.storage.albums.page(album.id, page);
  const items = await inOrder(deps, ids);
  return {
    album: presentAlbum(album),
    media: await presentMany(deps, items),
    pagination: { total, limit: page.limit, offset: page.offset, hasMore: page.offset + items.length < total },
  };
}

/** Records of these ids in this order (getMany answers in none). */
export async function inOrder(deps: Deps, ids: string[]): Promise<MediaRecord[]> {
  const byId = new Map((await deps.storage.media.getMany(ids)).map((m) => [m.id, m]));
  return ids.map((id) => byId.get(id)).filter((m): m is MediaRecord => m !== undefined);
}
