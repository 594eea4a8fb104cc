/**
 * The vector index on pgvector (src/index/vector/postgres/) on PGlite (or TEST_DATABASE_URL): the
 * engine-neutral contract (vectorSuite.ts), then what is PostgreSQL's own: entries kept in step by the
 * migration's triggers with no store calling the index, the HNSW walk and its exact fallback, rebuild
 * (first build and REINDEX) while queries keep answering, coverage, and vector search off.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pgVectorIndex } from '../../../src/index/vector/postgres/pgVectorIndex.js';
import type { VectorQuery, VectorRow } from '../../../src/index/vector/types.js';
import type { PgDb } from '../../../src/platform/pgDb.js';
import { pglite } from '../../helpers/pglite.js';
import { clustered, randomUnit, rng } from '../../helpers/vectors.js';
import { addImage, addObject, hasVector, openFixture, openSchema, putEmbeddings, seedLibrary } from './pgFixture.js';
import { row, vectorIndexSuite } from './vectorSuite.js';

if (!hasVector) {
  // TEST_DATABASE_URL names a server without pgvector (Debian's here): nothing of this file can run there.
  console.warn('pgVectorIndex.test.ts: SKIPPED, the server has no pgvector');
  process.exit(0);
}

vectorIndexSuite('pgvector', () => openFixture());

const q = (vector: Float32Array, collectionIds: string[], k: number, o: Partial<VectorQuery> = {}): VectorQuery => ({
  modelId: 'clip:test',
  similarityModel: 'objects',
  vector,
  collectionIds,
  k,
  ...o,
});

/** A library in plain SQL: `n` images, each with one object and its embedding (through the triggers only). */
async function library(db: PgDb, n: number, dims = 32) {
  const { orgId, colls } = await seedLibrary(db);
  const r = rng(11);
  const items: Array<{ mediaId: string; frameId: string; objectId: string; coll: string; row: VectorRow }> = [];
  for (let i = 0; i < n; i++) {
    const coll = colls[i % 2];
    const frame = await addImage(db, orgId, coll);
    const objectId = await addObject(db, frame);
    const vr = row(objectId, coll, randomUnit(r, dims), { mediaId: frame.mediaId, frameId: null });
    items.push({ ...frame, objectId, coll, row: vr });
  }
  await putEmbeddings(
    db,
    items.map((x) => x.row),
  );
  return { orgId, colls, items };
}

/** Scans of the model's HNSW index so far (statistics flushed first: they are reported at transaction end). */
async function hnswScans(db: PgDb, modelId = 'clip:test'): Promise<number> {
  await db.query(`SELECT pg_stat_force_next_flush()`);
  await db.query(`SELECT 1`);
  const row = await db.one<{ n: number }>(
    `SELECT s.idx_scan AS n FROM vector_models m
     JOIN pg_stat_user_indexes s ON s.indexrelname = m.index_name AND s.schemaname = current_schema()
     WHERE m.model_id = $1`,
    [modelId],
  );
  return row!.n;
}

const pg = suite('pgvector: triggers, fallback, rebuild, coverage, off');

pg(
  'triggers: embeddings written, replaced and deleted, objects and items deleted or restored, items moved',
  async () => {
    const db = await openSchema();
    const ix = pgVectorIndex(db, { enabled: true });
    const { colls, items } = await library(db, 20);
    const top = async (v: Float32Array, k = 1) => ix.search(q(v, colls, k));
    // Written by plain SQL into object_embeddings, with no call to the index: found, with the frame id of its object.
    let hits = await top(items[3].row.vector);
    assert.is(hits[0].objectId, items[3].objectId);
    assert.is(hits[0].frameId, items[3].frameId);
    assert.ok(Math.abs(hits[0].similarity - 1) < 1e-5);
    // Replaced: the new vector answers.
    const fresh = randomUnit(rng(12), 32);
    await putEmbeddings(db, [{ ...items[4].row, vector: fresh }]);
    assert.is((await top(fresh))[0].objectId, items[4].objectId);
    // An object deleted (a correction) leaves; restored, it comes back.
    await db.query(`UPDATE detected_objects SET status = 'deleted' WHERE id = $1`, [items[5].objectId]);
    assert.is.not((await top(items[5].row.vector))[0].objectId, items[5].objectId);
    await db.query(`UPDATE detected_objects SET status = 'active' WHERE id = $1`, [items[5].objectId]);
    assert.is((await top(items[5].row.vector))[0].objectId, items[5].objectId);
    // An item soft-deleted leaves with its vectors; another version becoming current changes nothing (as SQLite).
    await db.query(`UPDATE media SET status = 'deleted', deleted_at = now() WHERE id = $1`, [items[6].mediaId]);
    assert.is.not((await top(items[6].row.vector))[0].objectId, items[6].objectId);
    await db.query(`UPDATE media SET is_current = false WHERE id = $1`, [items[7].mediaId]);
    assert.is((await top(items[7].row.vector))[0].objectId, items[7].objectId);
    // Embeddings deleted (an item's analysis replaced): gone.
    await db.query(`DELETE FROM object_embeddings WHERE object_id = $1`, [items[8].objectId]);
    assert.is.not((await top(items[8].row.vector))[0].objectId, items[8].objectId);
    // An item moved to the other collection: found there.
    const other = colls.find((c) => c !== items[9].coll)!;
    await db.query(`UPDATE media SET dataset_id = $2 WHERE id = $1`, [items[9].mediaId, other]);
    hits = await ix.search(q(items[9].row.vector, [other], 1));
    assert.is(hits[0].objectId, items[9].objectId);
    assert.is(hits[0].collectionId, other);
    // A rolled-back write leaves the index as it was.
    await db
      .tx(async (tx) => {
        await tx.query(`DELETE FROM object_embeddings WHERE object_id = $1`, [items[10].objectId]);
        throw new Error('roll back');
      })
      .catch(() => {});
    assert.is((await top(items[10].row.vector))[0].objectId, items[10].objectId);
    const [s] = await ix.stats('clip:test');
    assert.is(s.rows, 20 - 2, 'the object restored; the item and the embedding deleted');
    await db.close();
  },
);

pg('the HNSW walk answers big scopes; a short walk falls back to exact; k whenever k allowed exist', async () => {
  // exactMax 0: every query walks the graph first; a tiny max_scan_tuples makes a selective filter come back short.
  const t = await openFixture({ exactMax: 0, maxScanTuples: 50 });
  const r = rng(13);
  const gen = clustered(r, 64, 10);
  const rows = Array.from({ length: 1200 }, (_, i) => row(`o${i}`, 'A', gen(), { mediaId: `m${i}` }));
  await t.put(rows);
  const scans = await hnswScans(t.db);
  let res = await t.ix.searchWithInfo(q(gen(), ['A'], 10));
  assert.equal([res.hits.length, res.info.strategy, res.info.fellBack], [10, 'ann', false]);
  assert.is(await hnswScans(t.db), scans + 1, 'the graph walk used the HNSW index');
  await t.ix.search(q(gen(), ['A'], 10, { strategy: 'exact' }));
  assert.is(await hnswScans(t.db), scans + 1, 'the exact scan did not');
  const allowed = ['m1', 'm500', 'm900', 'm1000', 'm1100', 'm7', 'm8', 'm9', 'm10', 'm11', 'm12', 'm13'];
  res = await t.ix.searchWithInfo(q(gen(), ['A'], 10, { mediaIds: allowed }));
  assert.equal([res.hits.length, res.info.strategy, res.info.fellBack], [10, 'exact', true]);
  assert.ok(res.hits.every((h) => allowed.includes(h.mediaId)));
  // Default tuning: few allowed rows are ranked exactly without walking the graph.
  const d = pgVectorIndex(t.db, { enabled: true });
  res = await d.searchWithInfo(q(gen(), ['A'], 10, { mediaIds: allowed }));
  assert.equal([res.hits.length, res.info.strategy, res.info.allowed, res.info.fellBack], [10, 'exact', 12, false]);
  await t.close();
});

pg('rebuild: a model with embeddings but no index is built while queries answer; REINDEX keeps answering', async () => {
  const db = await openSchema();
  const ix = pgVectorIndex(db, { enabled: true });
  const { colls, items } = await library(db, 40);
  await ix.dropModel('clip:test');
  assert.equal(await ix.search(q(items[0].row.vector, colls, 1)), []);
  assert.equal(await ix.unindexedModels(), ['clip:test']);
  await db.query(`UPDATE detected_objects SET status = 'deleted' WHERE id = $1`, [items[0].objectId]);
  const seen: number[] = [];
  let answered = 0;
  const res = await ix.rebuild('clip:test', {
    batchSize: 16,
    onProgress: async (n) => {
      seen.push(n);
      // Building: the rows loaded so far answer (exactly: the HNSW index comes at the end).
      if (n === 16) answered = (await ix.search(q(items[1].row.vector, colls, 5))).length;
    },
  });
  assert.is(res.rows, 39, 'all but the deleted object');
  assert.equal(seen, [16, 32, 40]);
  assert.ok(answered > 0);
  let [s] = await ix.stats('clip:test');
  assert.equal(
    [s.state, s.rows, s.needsRebuild, s.indexDtype, s.rerankDtype],
    ['live', 39, false, 'halfvec', 'float32'],
  );
  assert.equal(await ix.unindexedModels(), []);
  // A second rebuild reindexes concurrently; a stale entry (a row the triggers never saw go) is dropped.
  await db.query(`ALTER TABLE object_embeddings DISABLE TRIGGER vector_embeddings_deleted`);
  await db.query(`DELETE FROM object_embeddings WHERE object_id = $1`, [items[2].objectId]);
  await db.query(`ALTER TABLE object_embeddings ENABLE TRIGGER vector_embeddings_deleted`);
  const during = ix.search(q(items[3].row.vector, colls, 1));
  assert.equal(await ix.rebuild('clip:test'), { rows: 38 });
  assert.is((await during)[0].objectId, items[3].objectId);
  assert.is((await ix.search(q(items[3].row.vector, colls, 1)))[0].objectId, items[3].objectId);
  [s] = await ix.stats('clip:test');
  assert.is(s.rows, 38);
  // Nothing left to index: the model goes.
  await db.query(`DELETE FROM object_embeddings`);
  assert.equal(await ix.rebuild('clip:test'), { rows: 0 });
  assert.equal(await ix.stats(), []);
  await db.close();
});

pg('a bulk copy with lumen.vector_sync off writes embeddings only; rebuild() indexes them after', async () => {
  const db = await openSchema();
  const ix = pgVectorIndex(db, { enabled: true });
  const r = rng(16);
  const rows = Array.from({ length: 30 }, (_, i) => row(`o${i}`, 'A', randomUnit(r, 16), { frameId: null }));
  await db.tx(async (tx) => {
    await tx.query(`SET LOCAL lumen.vector_sync = off`);
    await putEmbeddings(tx, rows);
  });
  assert.equal(await ix.search(q(rows[0].vector, ['A'], 1)), []);
  assert.equal(await ix.unindexedModels(), ['clip:test']);
  assert.equal(await ix.rebuild('clip:test'), { rows: 30 });
  assert.is((await ix.search(q(rows[0].vector, ['A'], 1)))[0].objectId, 'o0');
  // Outside that transaction the triggers run again.
  await putEmbeddings(db, [row('late', 'A', randomUnit(r, 16))]);
  assert.is((await ix.stats('clip:test'))[0].rows, 31);
  await db.close();
});

pg('coverage: entries of current items against active objects; a new model fills while the old answers', async () => {
  const db = await openSchema();
  const ix = pgVectorIndex(db, { enabled: true });
  const { colls, items } = await library(db, 20);
  // A face without an embedding yet, and an object with no similarity model (not expected to have one).
  await addObject(db, items[0], 'faces');
  await addObject(db, items[1], null);
  let c = await ix.coverage('clip:test', colls, 'objects');
  assert.equal([c.indexed, c.objects, c.fraction, c.live], [20, 20, 1, true]);
  c = await ix.coverage('clip:test', colls);
  assert.equal([c.indexed, c.objects], [20, 21]);
  // Half of collection One re-embedded with a new model.
  const one = items.filter((x) => x.coll === colls[0]);
  await putEmbeddings(
    db,
    one.slice(0, 5).map((x) => ({ ...x.row, modelId: 'clip:new', vector: randomUnit(rng(14), 48) })),
  );
  c = await ix.coverage('clip:new', [colls[0]], 'objects');
  assert.equal([c.indexed, c.objects, c.fraction], [5, 10, 0.5]);
  assert.is((await ix.coverage('clip:new', colls, 'objects')).fraction, 0.25);
  c = await ix.coverage('nothing', colls);
  assert.equal([c.indexed, c.fraction, c.live], [0, 0, false]);
  // Deleted and non-current items count on neither side.
  await db.query(`UPDATE media SET status = 'deleted' WHERE id = $1`, [one[0].mediaId]);
  await db.query(`UPDATE media SET is_current = false WHERE id = $1`, [one[1].mediaId]);
  c = await ix.coverage('clip:new', [colls[0]], 'objects');
  assert.equal([c.indexed, c.objects], [3, 8]);
  assert.is((await ix.search(q(items[2].row.vector, colls, 1)))[0].objectId, items[2].objectId);
  await ix.dropModel('clip:test');
  assert.equal(await ix.search(q(items[2].row.vector, colls, 1)), []);
  await db.close();
});

pg('vector search off (no pgvector needed): finds nothing, writes nothing, coverage 0 and not live', async () => {
  const db = await openSchema(false);
  const ix = pgVectorIndex(db, { enabled: false });
  const { orgId, colls } = await seedLibrary(db);
  const frame = await addImage(db, orgId, colls[0]);
  const objectId = await addObject(db, frame);
  const v = randomUnit(rng(15), 16);
  // The relational side still keeps the embedding.
  await putEmbeddings(db, [row(objectId, colls[0], v, { mediaId: frame.mediaId })]);
  await ix.upsert([row(objectId, colls[0], v, { mediaId: frame.mediaId })]);
  await ix.remove([objectId]);
  await ix.removeMedia([frame.mediaId]);
  assert.equal(await ix.search(q(v, colls, 5)), []);
  const c = await ix.coverage('clip:test', colls, 'objects');
  assert.equal([c.indexed, c.objects, c.live], [0, 1, false]);
  assert.equal(await ix.stats(), []);
  assert.equal(await ix.unindexedModels(), []);
  assert.equal(await ix.rebuild('clip:test'), { rows: 0 });
  assert.ok(
    (await db.one(`SELECT to_regclass('vector_entries') AS t`))!.t === null,
    'no vector tables without the vector set',
  );
  assert.is((await db.one<{ n: number }>(`SELECT count(*) AS n FROM object_embeddings`))!.n, 1);
  await db.close();
});

pg.after(async () => {
  if (!process.env.TEST_DATABASE_URL) await (await pglite()).stop();
});
pg.run();
