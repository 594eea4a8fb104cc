/**
 * The prepared statements of the SQLite vector index: the index-wide ones over
 * the registry, the source tables and the partition counts, and the ones of
 * one generation's tables (created at run time, so prepared per generation).
 */
import type Database from 'better-sqlite3';

type Db = Database.Database;
type Stmt = Database.Statement<unknown[]>;

/** Statements over the registry tables (vector_indexes, vector_index_partitions) and the embeddings rebuilt from. */
export type IndexStatements = Record<
  | 'registry'
  | 'insertGeneration'
  | 'addDeleted'
  | 'bumpPartition'
  | 'partitionRows'
  | 'signature'
  | 'tableExists'
  | 'centerSample'
  | 'sourceBatch'
  | 'partitionCounts'
  | 'partitionSample'
  | 'generationRows'
  | 'bigPartitions',
  Stmt
>;

export function prepareIndexStatements(db: Db): IndexStatements {
  return {
    registry: db.prepare(
      `SELECT id, model_id, dims, quantizer, center, state, deleted_rows FROM vector_indexes ORDER BY id`,
    ),
    insertGeneration: db.prepare(
      `INSERT INTO vector_indexes (model_id, dims, quantizer, center, state, created_at, built_at)
       VALUES (?, ?, 'sign-centered', ?, ?, ?, ?)`,
    ),
    addDeleted: db.prepare(`UPDATE vector_indexes SET deleted_rows = deleted_rows + ? WHERE id = ?`),
    bumpPartition: db.prepare(
      `INSERT INTO vector_index_partitions (index_id, dataset_id, similarity_model, rows) VALUES (?, ?, ?, ?)
       ON CONFLICT (index_id, dataset_id, similarity_model) DO UPDATE SET rows = rows + excluded.rows`,
    ),
    partitionRows: db.prepare(
      `SELECT dataset_id, rows FROM vector_index_partitions
       WHERE index_id = ? AND similarity_model = ? AND dataset_id IN (SELECT value FROM json_each(?)) AND rows > 0`,
    ),
    // The registry's signature: a read of a table of a few rows tells whether the generations changed.
    signature: db.prepare(`SELECT coalesce(group_concat(id || state, ','), '') FROM vector_indexes`).pluck(),
    tableExists: db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).pluck(),
    centerSample: db
      .prepare(`SELECT vector FROM object_embeddings WHERE +model_id = ? ORDER BY object_id LIMIT ?`)
      .pluck(),
    // +e.model_id keeps the planner on the primary key (object_id range, in order) instead of sorting the model's rows each batch.
    sourceBatch: db.prepare(
      `SELECT e.object_id AS objectId, e.similarity_model AS similarityModel, e.media_id AS mediaId, e.dataset_id AS collectionId,
              e.vector AS vector, d.frame_id AS frameId
       FROM object_embeddings e
       LEFT JOIN detected_objects d ON d.id = e.object_id
       LEFT JOIN media m ON m.id = e.media_id
       WHERE +e.model_id = ? AND e.object_id > ? AND (d.status IS NULL OR d.status = 'active') AND (m.status IS NULL OR m.status = 'active')
       ORDER BY e.object_id LIMIT ?`,
    ),
    // The covering index object_embeddings_by_model answers both: counts without reading vectors, and a
    // partition's rows in object id order (random ids: a random sample).
    partitionCounts: db.prepare(
      `SELECT dataset_id AS ds, similarity_model AS sm, count(*) AS n FROM object_embeddings
       WHERE model_id = ? GROUP BY similarity_model, dataset_id`,
    ),
    partitionSample: db
      .prepare(
        `SELECT vector FROM object_embeddings WHERE model_id = ? AND similarity_model = ? AND dataset_id = ? ORDER BY object_id LIMIT ?`,
      )
      .pluck(),
    // Prepared once: organization search reads stats() on every query (which models answer).
    generationRows: db.prepare(
      `SELECT count(DISTINCT dataset_id) AS n, coalesce(sum(rows), 0) AS rows FROM vector_index_partitions WHERE index_id = ? AND rows > 0`,
    ),
    bigPartitions: db.prepare(
      `SELECT dataset_id AS ds, similarity_model AS sm, rows FROM vector_index_partitions WHERE index_id = ? AND rows >= ?`,
    ),
  };
}

/** Statements over one generation's tables (vec_index_<id>*): writes, look-ups, KNN, re-rank reads. */
export type GenerationStatements = Record<
  | 'insItem'
  | 'insF32'
  | 'insQ8'
  | 'insVec'
  | 'insSample'
  | 'delVec'
  | 'delSample'
  | 'delItem'
  | 'delF32'
  | 'delQ8'
  | 'itemByObject'
  | 'itemsByObjects'
  | 'itemsByMedia'
  | 'knn'
  | 'knnBound'
  | 'knnIn'
  | 'knnInBound'
  | 'sampleKnn'
  | 'resolve'
  | 'allRows'
  | 'mediaOf'
  | 'q8Of'
  | 'q8After'
  | 'exact'
  | 'hitsOf'
  | 'chunks',
  Stmt
>;

/** IVF generations only: KNN over one list, the list rows, their centroids, and list row counts kept in step. */
export type ListStatements = Record<
  'knn' | 'knnBound' | 'sampleKnn' | 'listRows' | 'centroids' | 'bumpList' | 'listCount' | 'listedGroups',
  Stmt
>;

/** The first-pass KNN over a collection's partition of table `t`; later statements add their constraints. */
const knnBaseOf = (t: string) =>
  `SELECT rowid, distance FROM ${t} WHERE embedding MATCH vec_bit(?) AND k = ? AND dataset_id = ? AND similarity_model = ?`;

/** Statements of generation table `t`; `ivf`: made since IVF (a `list` partition key and column). */
export function prepareGenerationStatements(db: Db, t: string, ivf: boolean): GenerationStatements {
  const items = `${t}_items`;
  const knnBase = knnBaseOf(t);
  const listCol = ivf ? 'list' : '0 AS list';
  return {
    insItem: ivf
      ? db.prepare(
          `INSERT INTO ${items} (object_id, media_id, frame_id, dataset_id, similarity_model, list) VALUES (?, ?, ?, ?, ?, ?)`,
        )
      : db.prepare(
          `INSERT INTO ${items} (object_id, media_id, frame_id, dataset_id, similarity_model) VALUES (?, ?, ?, ?, ?)`,
        ),
    insF32: db.prepare(`INSERT INTO ${t}_f32 (id, vector) VALUES (?, ?)`),
    insQ8: db.prepare(`INSERT INTO ${t}_q8 (id, q) VALUES (?, ?)`),
    insVec: ivf
      ? db.prepare(
          `INSERT INTO ${t} (rowid, dataset_id, similarity_model, list, embedding) VALUES (?, ?, ?, ?, vec_bit(?))`,
        )
      : db.prepare(`INSERT INTO ${t} (rowid, dataset_id, similarity_model, embedding) VALUES (?, ?, ?, vec_bit(?))`),
    insSample: ivf
      ? db.prepare(
          `INSERT INTO ${t}_sample (rowid, dataset_id, similarity_model, list, embedding) VALUES (?, ?, ?, ?, vec_bit(?))`,
        )
      : db.prepare(
          `INSERT INTO ${t}_sample (rowid, dataset_id, similarity_model, embedding) VALUES (?, ?, ?, vec_bit(?))`,
        ),
    delVec: db.prepare(`DELETE FROM ${t} WHERE rowid = ?`),
    delSample: db.prepare(`DELETE FROM ${t}_sample WHERE rowid = ?`),
    delItem: db.prepare(`DELETE FROM ${items} WHERE id = ?`),
    delF32: db.prepare(`DELETE FROM ${t}_f32 WHERE id = ?`),
    delQ8: db.prepare(`DELETE FROM ${t}_q8 WHERE id = ?`),
    itemByObject: db.prepare(
      `SELECT id AS rowid, dataset_id, similarity_model, ${listCol} FROM ${items} WHERE object_id = ?`,
    ),
    itemsByObjects: db.prepare(
      `SELECT id AS rowid, dataset_id, similarity_model, ${listCol} FROM ${items} WHERE object_id IN (SELECT value FROM json_each(?))`,
    ),
    itemsByMedia: db.prepare(
      `SELECT id AS rowid, dataset_id, similarity_model, ${listCol} FROM ${items} WHERE media_id IN (SELECT value FROM json_each(?))`,
    ),
    knn: db.prepare(knnBase),
    knnBound: db.prepare(`${knnBase} AND distance <= ?`),
    knnIn: db.prepare(`${knnBase} AND rowid IN (SELECT value FROM json_each(?))`),
    knnInBound: db.prepare(`${knnBase} AND rowid IN (SELECT value FROM json_each(?)) AND distance <= ?`),
    sampleKnn: db.prepare(
      `SELECT distance FROM ${t}_sample WHERE embedding MATCH vec_bit(?) AND k = ? AND dataset_id = ? AND similarity_model = ?`,
    ),
    resolve: db
      .prepare(
        `SELECT id FROM ${items} WHERE media_id IN (SELECT value FROM json_each(?)) AND similarity_model = ?
           AND dataset_id IN (SELECT value FROM json_each(?))`,
      )
      .pluck(),
    allRows: db
      .prepare(`SELECT id FROM ${items} WHERE dataset_id IN (SELECT value FROM json_each(?)) AND similarity_model = ?`)
      .pluck(),
    mediaOf: db.prepare(
      `SELECT id AS rowid, media_id AS mediaId FROM ${items} WHERE id IN (SELECT value FROM json_each(?))`,
    ),
    q8Of: db.prepare(`SELECT id, q FROM ${t}_q8 WHERE id IN (SELECT value FROM json_each(?))`),
    q8After: db.prepare(`SELECT id, q FROM ${t}_q8 WHERE id > ? ORDER BY id LIMIT ?`),
    exact: db.prepare(
      `SELECT id, vec_distance_l2(vector, ?) AS d FROM ${t}_f32 WHERE id IN (SELECT value FROM json_each(?))`,
    ),
    hitsOf: db.prepare(
      `SELECT id, object_id AS objectId, media_id AS mediaId, frame_id AS frameId, dataset_id AS collectionId
       FROM ${items} WHERE id IN (SELECT value FROM json_each(?))`,
    ),
    chunks: db.prepare(`SELECT count(*) FROM ${t}_chunks`).pluck(),
  };
}

/** The list statements of an IVF generation's table `t`. */
export function prepareListStatements(db: Db, t: string): ListStatements {
  const knnBase = knnBaseOf(t);
  return {
    knn: db.prepare(`${knnBase} AND list = ?`),
    knnBound: db.prepare(`${knnBase} AND list = ? AND distance <= ?`),
    sampleKnn: db.prepare(
      `SELECT distance FROM ${t}_sample
       WHERE embedding MATCH vec_bit(?) AND k = ? AND dataset_id = ? AND similarity_model = ? AND list = ?`,
    ),
    listRows: db.prepare(`SELECT list, rows FROM ${t}_lists WHERE dataset_id = ? AND similarity_model = ?`),
    centroids: db.prepare(
      `SELECT list, centroid, trained_rows AS trainedRows FROM ${t}_lists WHERE dataset_id = ? AND similarity_model = ? ORDER BY list`,
    ),
    bumpList: db.prepare(
      `UPDATE ${t}_lists SET rows = rows + ? WHERE dataset_id = ? AND similarity_model = ? AND list = ?`,
    ),
    listCount: db.prepare(`SELECT count(*) FROM ${t}_lists`).pluck(),
    listedGroups: db
      .prepare(`SELECT count(DISTINCT dataset_id || char(0) || similarity_model) FROM ${t}_lists`)
      .pluck(),
  };
}
