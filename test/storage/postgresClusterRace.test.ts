/**
 * Face clusters on Debian's multi-process PostgreSQL (no pgvector: VECTOR_SEARCH=off), where PGlite
 * cannot prove anything about concurrency: the engine-neutral cluster suite, then two stores (two pools,
 * so two sets of server backends) assigning the same faces at once while a third reprocesses and deletes
 * faces. Every face must be clustered exactly once, sizes must equal member rows, no deadlock may surface.
 * Skips with a message where that server is not installed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seededRandom } from '../../src/platform/random.js';
import { openPostgresStorage } from '../../src/storage/postgres/index.js';
import { clusterStoreSuite, THRESHOLDS, writeFaces } from '../features/faces/clusterStoreSuite.js';
import { faceOf, randomUnit } from '../helpers/faceVectors.js';
import { postgresServer, postgresServerMissing } from '../helpers/postgresServer.js';
import { openPgClusterLib } from './pgClusterLib.js';
import { freshSchema } from '../helpers/pglite.js';

const missing = postgresServerMissing();
if (missing) {
  console.log(`SKIP face clusters on a real PostgreSQL server: ${missing}`);
} else {
  const server = { ...(await postgresServer()), vector: false };
  clusterStoreSuite('postgres server', () => openPgClusterLib(server));

  const race = suite('clusters: postgres server, concurrent');

  race('two stores assigning at once while faces are reprocessed and deleted: each face clustered once', async () => {
    const schema = freshSchema('race');
    const lib = await openPgClusterLib(server, schema);
    const second = await openPostgresStorage(server.url, { schema, vectorSearch: false });
    const third = await openPostgresStorage(server.url, { schema, vectorSearch: false });
    try {
      const r = seededRandom(13);
      const people = Array.from({ length: 12 }, () => randomUnit(r));
      const pick = () => faceOf(people[Math.floor(r() * people.length)], 0.9, r);
      const frames: string[] = [];
      let faces = 0;
      for (let k = 0; k < 60; k++) {
        const p = await lib.addImage();
        frames.push(p.frameId);
        const n = 1 + Math.floor(r() * 4);
        faces += n;
        await writeFaces(lib, p.frameId, Array.from({ length: n }, pick));
      }
      // Meanwhile: the first 10 frames reprocessed (their faces replaced), faces of the next 5 deleted.
      const churn = async () => {
        for (const frameId of frames.slice(0, 10)) {
          await writeFaces({ analysis: third.analysis }, frameId, [pick(), pick()]);
        }
        for (const frameId of frames.slice(10, 15)) {
          const ids = await third.db.many<{ id: string }>(`SELECT id FROM detected_objects WHERE frame_id = $1`, [
            frameId,
          ]);
          for (const { id } of ids) await third.analysis.correctObject(id, { deleted: true });
        }
      };
      const opts = { thresholds: THRESHOLDS, batchSize: 4 };
      const [x, y] = await Promise.all([
        lib.clusters.assignPending(lib.collId, 10_000, opts),
        second.clusters.assignPending(null, 10_000, { ...opts, batchSize: 3 }),
        churn(),
      ]);
      assert.ok(x.assigned > 0 && y.assigned > 0, `both took part: ${x.assigned} + ${y.assigned}`);
      // Whatever the churn queued after a run looked is assigned now; stale clusters are refreshed.
      await lib.clusters.assignPending(null, 10_000, opts);
      assert.is(await lib.clusters.pendingCount(null), 0);
      const db = lib.s.db;
      const active = await db.one<{ n: number }>(
        `SELECT count(*) AS n FROM detected_objects o JOIN object_embeddings e ON e.object_id = o.id
          WHERE o.status = 'active' AND o.similarity_model = 'faces'`,
      );
      assert.is(await lib.memberCount(), active!.n, 'every active face a member, once (the primary key)');
      const stray = await db.one<{ n: number }>(
        `SELECT count(*) AS n FROM cluster_members cm LEFT JOIN detected_objects o ON o.id = cm.object_id
          WHERE o.status IS DISTINCT FROM 'active'`,
      );
      assert.is(stray!.n, 0, 'no deleted face is a member');
      const mismatched = await db.many(
        `SELECT c.id FROM clusters c LEFT JOIN (SELECT cluster_id, count(*) AS n FROM cluster_members GROUP BY 1) m
           ON m.cluster_id = c.id WHERE c.size <> coalesce(m.n, 0) OR c.dirty`,
      );
      assert.equal(mismatched, [], 'sizes equal member rows; nothing left dirty');
      const n = await lib.clusters.countClusters(lib.collId);
      assert.ok(n >= 10 && n <= 14, `${n} clusters for 12 people (${faces} faces written at first)`);
    } finally {
      await third.close();
      await second.close();
      await lib.close();
    }
  });

  race.run();
}
