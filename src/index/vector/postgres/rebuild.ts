/**
 * Rebuilding a model's index: the entries are brought in line with object_embeddings in batches (missing
 * live rows added, rows no longer live removed; the triggers keep everything written meanwhile in step),
 * then the HNSW index is made (a first build: CREATE INDEX CONCURRENTLY after loading, faster than growing
 * the graph row by row) or rebuilt (REINDEX CONCURRENTLY: the old index answers until the new one replaces
 * it, and the space of deleted rows is reclaimed). Queries keep answering throughout; a model without its
 * index yet answers exactly.
 */
import { setImmediate as turn } from 'node:timers/promises';
import { schemaLockName, type PgDb } from '../../../platform/pgDb.js';
import type { RebuildOptions } from '../types.js';
import { createIndexSql, LIVE_SOURCE, modelRow, type ModelRow } from './sql.js';
import { dropModel } from './write.js';

const DEFAULT_BATCH = 5000;

/** Registers the model as `building` when it has no registry row (or one of other dims: a re-embedded model). */
async function prepareModel(db: PgDb, modelId: string): Promise<ModelRow | null> {
  const first = await db.one<{ dims: number }>(
    `SELECT length(vector) / 4 AS dims FROM object_embeddings WHERE model_id = $1 LIMIT 1`,
    [modelId],
  );
  if (!first) {
    await dropModel(db, modelId);
    return null;
  }
  const model = await modelRow(db, modelId);
  if (model && model.dims === first.dims) return model;
  if (model) await dropModel(db, modelId);
  await db.query(`SELECT vector_model_ensure($1, $2, 'building')`, [modelId, first.dims]);
  return modelRow(db, modelId);
}

/** One batch of object_embeddings keys after `after`: adds the live rows missing, drops entries not live. */
async function syncBatch(
  db: PgDb,
  modelId: string,
  after: string,
  size: number,
): Promise<{ last: string; n: number } | null> {
  return db.tx(async (tx) => {
    const keys = (
      await tx.many<{ object_id: string }>(
        `SELECT object_id FROM object_embeddings WHERE model_id = $1 AND object_id > $2 ORDER BY object_id LIMIT $3`,
        [modelId, after, size],
      )
    ).map((r) => r.object_id);
    if (keys.length === 0) return null;
    const last = keys[keys.length - 1];
    await tx.query(
      `INSERT INTO vector_entries (model_id, object_id, similarity_model, media_id, dataset_id, frame_id, embedding)
       SELECT e.model_id, e.object_id, e.similarity_model, e.media_id, e.dataset_id, d.frame_id,
              l2_normalize(vector_from_f32le(e.vector))
       FROM object_embeddings e
       LEFT JOIN detected_objects d ON d.id = e.object_id LEFT JOIN media m ON m.id = e.media_id
       WHERE e.model_id = $1 AND e.object_id = ANY($2::text[]) AND ${LIVE_SOURCE}
       ON CONFLICT (model_id, object_id) DO NOTHING`,
      [modelId, keys],
    );
    await dropStale(tx, modelId, after, last);
    return { last, n: keys.length };
  });
}

/** Entries of the model with object ids in (after, upTo] (upTo null: no bound) that no live source row backs. */
async function dropStale(db: Pick<PgDb, 'query'>, modelId: string, after: string, upTo: string | null) {
  await db.query(
    `DELETE FROM vector_entries v WHERE v.model_id = $1 AND v.object_id > $2 AND ($3::text IS NULL OR v.object_id <= $3)
       AND NOT EXISTS (SELECT 1 FROM object_embeddings e
         LEFT JOIN detected_objects d ON d.id = e.object_id LEFT JOIN media m ON m.id = e.media_id
         WHERE e.object_id = v.object_id AND e.model_id = v.model_id AND ${LIVE_SOURCE})`,
    [modelId, after, upTo],
  );
}

/** Makes the model's HNSW index (first build, or missing or left invalid by a failed build) or rebuilds it. */
async function buildIndex(db: PgDb, model: ModelRow): Promise<void> {
  const index = await db.one<{ valid: boolean }>(
    `SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass($1)`,
    [model.index_name],
  );
  // CONCURRENTLY cannot run inside a transaction block: each statement runs on its own.
  if (index?.valid) {
    await db.query(`REINDEX INDEX CONCURRENTLY ${model.index_name}`);
  } else {
    if (index) await db.query(`DROP INDEX CONCURRENTLY IF EXISTS ${model.index_name}`);
    await db.query(createIndexSql(model, true));
  }
  await db.query(`UPDATE vector_models SET state = 'live', rebuilt_at = now() WHERE model_id = $1`, [model.model_id]);
}

/** Our advisory lock class for rebuilds (the second key is the model id's hash). */
const REBUILD_LOCK = 0x76656321; // 'vec!'

const countRows = async (db: PgDb, modelId: string) =>
  (await db.one<{ n: number }>(`SELECT count(*) AS n FROM vector_entries WHERE model_id = $1`, [modelId]))!.n;

/**
 * VectorIndex.rebuild. Every API process runs the search maintenance, so several may ask for the same
 * rebuild at start-up: a session advisory lock per model lets one do it; the others wait for it to finish
 * and report its rows instead of repeating the work. The lock is this schema's: a library in another schema of
 * the same database rebuilds its own index of the same model at the same time.
 */
export async function rebuild(db: PgDb, modelId: string, options: RebuildOptions = {}): Promise<{ rows: number }> {
  const client = await db.pool.connect();
  try {
    const lock = [REBUILD_LOCK, schemaLockName(db, modelId)];
    const got = (await client.query(`SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok`, lock)).rows[0].ok;
    if (!got) {
      await client.query(`SELECT pg_advisory_lock($1, hashtext($2))`, lock);
      await client.query(`SELECT pg_advisory_unlock($1, hashtext($2))`, lock);
      return { rows: await countRows(db, modelId) };
    }
    try {
      return await rebuildLocked(db, modelId, options);
    } finally {
      await client.query(`SELECT pg_advisory_unlock($1, hashtext($2))`, lock).catch(() => {});
    }
  } finally {
    client.release();
  }
}

async function rebuildLocked(db: PgDb, modelId: string, options: RebuildOptions): Promise<{ rows: number }> {
  const model = await prepareModel(db, modelId);
  if (!model) return { rows: 0 };
  const size = Math.max(1, options.batchSize ?? DEFAULT_BATCH);
  let after = '';
  let done = 0;
  for (;;) {
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('rebuild aborted');
    const batch = await syncBatch(db, modelId, after, size);
    if (batch === null) break;
    after = batch.last;
    done += batch.n;
    options.onProgress?.(done);
    await turn();
  }
  await dropStale(db, modelId, after, null);
  await buildIndex(db, model);
  // Fresh statistics for the planner's choice between the scope btree (exact) and the graph.
  await db.query(`ANALYZE vector_entries`);
  return { rows: await countRows(db, modelId) };
}
