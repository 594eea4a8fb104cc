/**
 * The face cluster suites' library (./clusterStoreSuite.ts, ./peopleSuite.ts) on a SQLite store in `file`:
 * one organization, one collection, images inserted through the media store.
 */
import { newMediaId, newUuid, nowIso, pathLabel } from '../../../src/platform/ids.js';
import { CLUSTER_BROWSE_CLAUSE, sqliteClusterStore } from '../../../src/storage/sqlite/clusterStore.js';
import { openSqliteStorage, type SqliteStorage } from '../../../src/storage/sqlite/index.js';
import type { ClusterLib } from './clusterStoreSuite.js';

export interface SqliteClusterLib extends ClusterLib {
  s: SqliteStorage;
  userId: string;
  orgId: string;
}

export async function openSqliteClusterLib(file: string): Promise<SqliteClusterLib> {
  const s = openSqliteStorage(file);
  const user = await s.accounts.createUser({
    id: newUuid(),
    email: `u-${newUuid()}@example.com`,
    name: 'U',
    createdAt: nowIso(),
  });
  const orgId = newUuid();
  await s.accounts.createOrganization({ id: orgId, name: 'Org', slug: `org-${orgId.slice(0, 8)}` }, user.id);
  const collId = await addCollection(s, orgId, user.id);
  const lib: SqliteClusterLib = {
    s,
    clusters: sqliteClusterStore(s.db),
    analysis: s.analysis,
    userId: user.id,
    orgId,
    collId,
    addCollection: () => addCollection(s, orgId, user.id),
    addImage: (coll = collId) => addImage(lib, coll),
    deleteItem: async (mediaId) => void (await s.media.softDelete(mediaId, user.id)),
    purgeItem: async (mediaId) => {
      await s.media.trash([mediaId], user.id);
      await s.media.purgeTrash([mediaId]);
    },
    browseCluster: async (clusterId, coll = collId) =>
      s.db
        .prepare(
          `SELECT m.id FROM media m WHERE m.status = 'active' AND m.is_current = 1 AND m.dataset_id = ? AND ${CLUSTER_BROWSE_CLAUSE} ORDER BY m.id`,
        )
        .pluck()
        .all(coll, clusterId) as string[],
    memberCount: async () => memberCount(lib),
    memberSizes: async () =>
      s.db
        .prepare(`SELECT cluster_id, count(*) AS n FROM cluster_members GROUP BY cluster_id ORDER BY n DESC`)
        .all() as Array<{ cluster_id: string; n: number }>,
    clusterRow: async (id) => {
      const row = s.db.prepare(`SELECT centroid, dims, dirty, preview_object_id FROM clusters WHERE id = ?`).get(id) as
        { centroid: Buffer; dims: number; dirty: number; preview_object_id: string | null } | undefined;
      return row
        ? {
            dims: row.dims,
            centroidBytes: row.centroid.byteLength,
            dirty: row.dirty === 1,
            previewObjectId: row.preview_object_id,
          }
        : null;
    },
    close: () => s.close(),
  };
  return lib;
}

async function addCollection(s: SqliteStorage, orgId: string, userId: string): Promise<string> {
  const at = nowIso();
  const c = await s.collections.create({
    id: newUuid(),
    organizationId: orgId,
    name: 'People',
    icon: null,
    type: 'media',
    createdAt: at,
    updatedAt: at,
    createdById: userId,
  });
  return c.id;
}

/** An image item with one frame; returns its media and frame ids. */
export async function addImage(
  lib: SqliteClusterLib,
  collId = lib.collId,
): Promise<{ mediaId: string; frameId: string }> {
  const id = newMediaId();
  const frameId = newMediaId();
  await lib.s.media.insert(
    {
      id,
      collectionId: collId,
      organizationId: lib.orgId,
      parentPath: pathLabel(collId),
      type: 'image',
      name: `${id.slice(0, 6)}.jpg`,
      blobKey: `blob-${id}`,
      mimeType: 'image/jpeg',
      width: 640,
      height: 480,
      duration: null,
      sizeBytes: 1000,
      exif: {},
      metadata: {},
      processingStatus: 'ready',
      createdById: lib.userId,
    },
    [{ id: frameId, timestamp: '0', blobKey: `frame-${id}`, width: 640, height: 480 }],
  );
  return { mediaId: id, frameId };
}

export const memberCount = (lib: SqliteClusterLib) =>
  lib.s.db.prepare(`SELECT count(*) FROM cluster_members`).pluck().get() as number;
