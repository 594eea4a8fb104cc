/**
 * The opening the contract suites share (trash, timeline, places, share, bulk, bulk undo): a writer who owns an
 * organization with one media collection, items and folders in it, and a browse query over it. Through the
 * Storage interface only, so both engines serve.
 */
import { newMediaId, newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';
import type { BrowseQuery, MediaRecord, Metadata, NewMedia } from '../../src/storage/types.js';
import { NO_FILTERS } from '../../src/storage/browseQuery.js';

export interface Fx {
  s: Storage;
  userId: string;
  orgId: string;
  collId: string;
  /** The collection's root path. */
  root: string;
}

/** A new organization owned by `userId`; its name is `name`, its slug unique. */
export async function newOrganization(s: Storage, userId: string, name: string): Promise<string> {
  const orgId = newUuid();
  await s.accounts.createOrganization({ id: orgId, name, slug: `${name.toLowerCase()}-${orgId}` }, userId);
  return orgId;
}

/** A new media collection of `organizationId`, made by `userId`. */
export async function newCollection(s: Storage, organizationId: string, userId: string, name: string): Promise<string> {
  const at = nowIso();
  const coll = await s.collections.create({
    ...{ id: newUuid(), organizationId, name, icon: null, type: 'media' },
    ...{ createdAt: at, updatedAt: at, createdById: userId },
  });
  return coll.id;
}

/** A user, an organization it owns and a collection in it, all called `name` (a letter is enough). */
export async function suiteLibrary(s: Storage, name: string): Promise<Fx> {
  const userId = newUuid();
  const email = `${name.toLowerCase()}-${userId}@example.com`;
  await s.accounts.createUser({ id: userId, email, name, createdAt: nowIso() });
  const orgId = await newOrganization(s, userId, name);
  const collId = await newCollection(s, orgId, userId, name);
  return { s, userId, orgId, collId, root: pathLabel(collId) };
}

/** A ready 10×10 JPEG image in the collection under `parentPath`; `o` overrides any field. */
export function newMedia(fx: Fx, parentPath: string, o: Partial<NewMedia> = {}): NewMedia {
  const id = o.id ?? newMediaId();
  return {
    id,
    collectionId: fx.collId,
    organizationId: fx.orgId,
    parentPath,
    type: 'image',
    name: `img-${id.slice(0, 6)}.jpg`,
    blobKey: `blob-${id}`,
    mimeType: 'image/jpeg',
    width: 10,
    height: 10,
    duration: null,
    sizeBytes: 100,
    exif: {},
    metadata: {},
    processingStatus: 'ready',
    createdById: fx.userId,
    ...o,
  };
}

/** Stores newMedia(fx, parentPath, o) with one frame. */
export const addItem = (fx: Fx, parentPath: string, o: Partial<NewMedia> = {}): Promise<MediaRecord> => {
  const m = newMedia(fx, parentPath, o);
  return fx.s.media.insert(m, [{ id: newMediaId(), timestamp: '0', blobKey: `frame-${m.id}`, width: 1, height: 1 }]);
};

export const addFolder = async (fx: Fx, name: string, parentPath: string): Promise<MediaRecord> =>
  (
    await fx.s.media.insertFolder(
      { ...newMedia(fx, parentPath, { type: 'folder', name, blobKey: null, mimeType: null, sizeBytes: 0 }) },
      false,
    )
  ).folder;

/** Browse of the whole collection (recursive), by name, 100 a page; `o` overrides any field. */
export function query(fx: Fx, o: Partial<BrowseQuery> = {}): BrowseQuery {
  return {
    collectionId: fx.collId,
    path: fx.root,
    recursive: true,
    ...NO_FILTERS,
    sortBy: 'name',
    sortDirection: 'asc',
    limit: 100,
    offset: 0,
    ...o,
  };
}

/**
 * The bulk suites' library: suiteLibrary's, with a second organization or collection on demand, untagged items
 * and folders (`base` names any field), a recorded action and a listing of the ids a browse finds. Make one per
 * suite; `open` starts each test's library, which the helpers then work in.
 */
export function bulkLibrary() {
  let fx: Fx;
  const base = (type: 'image' | 'folder', parentPath: string, metadata: Metadata, coll?: string, org?: string) =>
    ({
      id: newMediaId(),
      collectionId: coll ?? fx.collId,
      organizationId: org ?? fx.orgId,
      parentPath,
      type,
      name: `${type}-${newMediaId().slice(0, 6)}`,
      blobKey: type === 'folder' ? null : `b-${newMediaId()}`,
      mimeType: null,
      width: null,
      height: null,
      duration: null,
      sizeBytes: 1,
      exif: {},
      metadata,
      processingStatus: 'ready',
      createdById: fx.userId,
    }) satisfies NewMedia;
  return {
    open: async (s: Storage): Promise<Fx> => (fx = await suiteLibrary(s, 'U')),
    newOrg: () => newOrganization(fx.s, fx.userId, 'Org'),
    newColl: (organizationId: string) => newCollection(fx.s, organizationId, fx.userId, 'C'),
    base,
    item: (metadata: Metadata = {}, parentPath = fx.root) => fx.s.media.insert(base('image', parentPath, metadata), []),
    folder: async (parentPath = fx.root) =>
      (await fx.s.media.insertFolder(base('folder', parentPath, {}), false)).folder,
    action: (op = 'x') => ({ id: newUuid(), organizationId: fx.orgId, userId: fx.userId, operation: { type: op } }),
    listed: async (over: Partial<BrowseQuery>) =>
      (
        await fx.s.media.browseIds(
          query(fx, { sortBy: 'createdAt', sortDirection: 'desc', limit: 1000, recursive: true, ...over }),
          10_000,
        )
      ).sort(),
  };
}
