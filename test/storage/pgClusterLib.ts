/**
 * The face cluster suite's library (test/features/faces/clusterStoreSuite.ts) on a PostgreSQL store: the
 * stores under test are the PostgreSQL analysis and cluster stores; items, collections and soft deletes
 * are plain SQL (test/helpers/pgItems.ts) until the PostgreSQL media store is there.
 */
import { clusterBrowseClause } from '../../src/storage/postgres/clusterReads.js';
import { openPostgresStorage, type PostgresStorage } from '../../src/storage/postgres/index.js';
import type { ClusterLib } from '../features/faces/clusterStoreSuite.js';
import { freshSchema, type TestPostgres } from '../helpers/pglite.js';
import { pgCollection, pgItem, pgOwner, pgSoftDelete } from '../helpers/pgItems.js';

export interface PgClusterLib extends ClusterLib {
  s: PostgresStorage;
}

/** A fresh schema on `server` with one organization and collection; `schema` reopens an existing one. */
export async function openPgClusterLib(server: TestPostgres, schema = freshSchema()): Promise<PgClusterLib> {
  const s = await openPostgresStorage(server.url, { schema, vectorSearch: server.vector });
  const owner = await pgOwner(s.db);
  const { db } = s;
  return {
    s,
    clusters: s.clusters,
    analysis: s.analysis,
    collId: owner.collId,
    addCollection: () => pgCollection(db, owner.orgId, owner.userId),
    addImage: async (collId = owner.collId) => {
      const item = await pgItem(db, owner, { collId });
      return { mediaId: item.mediaId, frameId: item.frameIds[0] };
    },
    deleteItem: (mediaId) => db.tx((tx) => pgSoftDelete(tx, mediaId)),
    purgeItem: async (mediaId) => {
      await s.media.trash([mediaId], owner.userId);
      await s.media.purgeTrash([mediaId]);
    },
    browseCluster: async (clusterId, collId = owner.collId) =>
      (
        await db.many<{ id: string }>(
          `SELECT m.id FROM media m WHERE m.status = 'active' AND m.is_current AND m.dataset_id = $1
             AND ${clusterBrowseClause('$2')} ORDER BY m.id`,
          [collId, clusterId],
        )
      ).map((r) => r.id),
    memberCount: async () => (await db.one<{ n: number }>(`SELECT count(*) AS n FROM cluster_members`))!.n,
    memberSizes: () =>
      db.many<{ cluster_id: string; n: number }>(
        `SELECT cluster_id, count(*)::int AS n FROM cluster_members GROUP BY cluster_id ORDER BY n DESC`,
      ),
    clusterRow: async (id) => {
      const row = await db.one<{ dims: number; bytes: number; dirty: boolean; preview_object_id: string | null }>(
        `SELECT dims, octet_length(centroid) AS bytes, dirty, preview_object_id FROM clusters WHERE id = $1`,
        [id],
      );
      return row
        ? { dims: row.dims, centroidBytes: row.bytes, dirty: row.dirty, previewObjectId: row.preview_object_id }
        : null;
    },
    close: () => s.close(),
  };
}
