/**
 * The index's own writes. On PostgreSQL the triggers of the vector migration keep the entries in step with
 * object_embeddings and the objects' and items' statuses, so the relational stores never call these; they
 * serve callers that index vectors directly (tests, tools) and the interface's promises.
 */
import type { PgDb, PgRunner } from '../../../platform/pgDb.js';
import { normalize } from '../math.js';
import type { VectorRow } from '../types.js';
import { modelRow, vectorText } from './sql.js';

/** Registers each model of `rows` at its dims (creating its HNSW index on first use), then upserts the entries. */
export async function upsertRows(db: PgDb, rows: VectorRow[]): Promise<void> {
  if (rows.length === 0) return;
  const dims = new Map<string, Set<number>>();
  for (const r of rows) {
    const set = dims.get(r.modelId) ?? new Set<number>();
    set.add(r.vector.length);
    dims.set(r.modelId, set);
  }
  await db.tx(async (tx) => {
    for (const [modelId, lengths] of dims)
      for (const n of lengths) await tx.query(`SELECT vector_model_ensure($1, $2)`, [modelId, n]);
    await tx.query(
      // An entry already as given (the triggers wrote it from the same embedding) is left alone: no new
      // tuple, no second insertion into the graph.
      `INSERT INTO vector_entries AS v (model_id, object_id, similarity_model, media_id, dataset_id, frame_id, embedding)
       SELECT model_id, object_id, similarity_model, media_id, dataset_id, frame_id, embedding::vector
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
         AS r(model_id, object_id, similarity_model, media_id, dataset_id, frame_id, embedding)
       ON CONFLICT (model_id, object_id) DO UPDATE SET
         similarity_model = excluded.similarity_model, media_id = excluded.media_id,
         dataset_id = excluded.dataset_id, frame_id = coalesce(excluded.frame_id, v.frame_id),
         embedding = excluded.embedding
       WHERE (v.similarity_model, v.media_id, v.dataset_id, v.frame_id, v.embedding)
         IS DISTINCT FROM (excluded.similarity_model, excluded.media_id, excluded.dataset_id,
                           coalesce(excluded.frame_id, v.frame_id), excluded.embedding)`,
      [
        rows.map((r) => r.modelId),
        rows.map((r) => r.objectId),
        rows.map((r) => r.similarityModel),
        rows.map((r) => r.mediaId),
        rows.map((r) => r.collectionId),
        rows.map((r) => r.frameId ?? null),
        rows.map((r) => vectorText(normalize(r.vector))),
      ],
    );
  });
}

/** Deletes the entries of these objects (every model) or of these items. */
export async function removeRows(db: PgRunner, by: 'objects' | 'media', ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(`DELETE FROM vector_entries WHERE ${by === 'objects' ? 'object_id' : 'media_id'} = ANY($1::text[])`, [
    ids,
  ]);
}

/** Drops the model's HNSW index, entries and registry row in one transaction. */
export async function dropModel(db: PgDb, modelId: string): Promise<void> {
  await db.tx(async (tx) => {
    const model = await modelRow(tx, modelId);
    if (!model) return;
    await tx.query(`DROP INDEX IF EXISTS ${model.index_name}`);
    await tx.query(`DELETE FROM vector_entries WHERE model_id = $1`, [modelId]);
    await tx.query(`DELETE FROM vector_models WHERE model_id = $1`, [modelId]);
  });
}
