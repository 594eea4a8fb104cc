/**
 * Face clusters on PostgreSQL: the engine-neutral cluster store suite on PGlite (one schema per test).
 * Concurrency (two stores assigning at once) needs a real server: test/storage/postgresClusterRace.test.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seededRandom } from '../../src/platform/random.js';
import { clusterStoreSuite, MODEL, THRESHOLDS, writeFaces } from '../features/faces/clusterStoreSuite.js';
import { faceOf, randomUnit } from '../helpers/faceVectors.js';
import { pglite } from '../helpers/pglite.js';
import { postgresServer } from '../helpers/postgresServer.js';
import { openPgClusterLib } from './pgClusterLib.js';

const server = process.env.TEST_DATABASE_URL ? await postgresServer() : await pglite();

clusterStoreSuite('postgres', () => openPgClusterLib(server));

// PostgreSQL only: a face still a member when its item is purged (a state the status trigger normally
// prevents, e.g. a library copied in before the cluster triggers) leaves through the embeddings' trigger, as on
// SQLite: the purge once deleted the member rows itself first, so the cluster's size never dropped.
const t = suite('clusters: postgres purge');
t('a face that is still a member when its item is purged: the size drops with it', async () => {
  const lib = await openPgClusterLib(server);
  try {
    const r = seededRandom(31);
    const u = randomUnit(r);
    const items = [await lib.addImage(), await lib.addImage()];
    const faces: string[] = [];
    for (const p of items) faces.push(...(await writeFaces(lib, p.frameId, [faceOf(u, 0.9, r)])));
    await lib.clusters.assignPending(lib.collId, 1000, { thresholds: THRESHOLDS });
    const id = (await lib.clusters.clusterOfObject(faces[0]))!;
    await lib.s.media.trash([items[1].mediaId], (await lib.s.db.one<{ id: string }>(`SELECT id FROM users`))!.id);
    assert.is((await lib.clusters.getCluster(id))!.size, 1);
    // The member row back, as a copied-in library could hold it.
    await lib.s.db.query(
      `INSERT INTO cluster_members (object_id, model_id, cluster_id, media_id, similarity) VALUES ($1, $2, $3, $4, 0.9)`,
      [faces[1], MODEL, id, items[1].mediaId],
    );
    await lib.s.db.query(`UPDATE clusters SET size = size + 1 WHERE id = $1`, [id]);
    await lib.s.media.purgeTrash([items[1].mediaId]);
    assert.is((await lib.clusters.getCluster(id))!.size, 1);
    assert.is(await lib.memberCount(), 1);
  } finally {
    await lib.close();
  }
});
t.run();
