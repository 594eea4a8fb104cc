/**
 * What the models found on a frame, written on PostgreSQL: captions, objects and their embeddings replaced
 * (the user's rows kept), embeddings added by re-indexing. Every write is set-based (unnest), one
 * transaction per call. The search indexes and face clusters follow through triggers on these tables
 * (captions, detected_objects, object_embeddings), so nothing here calls an index writer.
 * SQLite: src/storage/sqlite/analysisStore.ts (modelResults, modelObjects).
 */
import { vectorToBlob } from '../../index/faces/vectorBlob.js';
import { notFound } from '../../platform/errors.js';
import type { PgDb, PgRunner } from '../../platform/pgDb.js';
import type { AnalysisStore } from '../storage.js';
import type { NewCaption, NewObject } from '../types.js';

type FrameOfMedia = { id: string; media_id: string; dataset_id: string };

/** The frame with its item's collection, locked: two analyses of one frame take turns (no duplicates). */
async function lockFrame(tx: PgRunner, frameId: string): Promise<FrameOfMedia> {
  const frame = await tx.one<FrameOfMedia>(
    `SELECT f.id, f.media_id, m.dataset_id FROM frames f JOIN media m ON m.id = f.media_id WHERE f.id = $1
     FOR UPDATE OF f`,
    [frameId],
  );
  if (!frame) throw notFound('frame not found');
  return frame;
}

/**
 * Deletes what the model made on a frame (captions, objects, embeddings); the user's rows stay. With
 * `objectType`, only the model's objects of that type (and their embeddings) go; captions stay.
 */
async function dropModelRows(tx: PgRunner, frameId: string, objectType?: string): Promise<void> {
  const ofType = objectType === undefined ? '' : 'AND type = $2';
  const params = objectType === undefined ? [frameId] : [frameId, objectType];
  const objects = `SELECT id FROM detected_objects WHERE frame_id = $1 AND source = 'model' ${ofType}`;
  await tx.query(`DELETE FROM object_embeddings WHERE object_id IN (${objects})`, params);
  await tx.query(`DELETE FROM detected_objects WHERE id IN (${objects})`, params);
  if (objectType === undefined) await tx.query(`DELETE FROM captions WHERE frame_id = $1 AND source = 'model'`, params);
}

async function insertCaptions(tx: PgRunner, frame: FrameOfMedia, captions: NewCaption[], at: string): Promise<void> {
  if (captions.length === 0) return;
  await tx.query(
    `INSERT INTO captions (id, frame_id, media_id, text, model, source, created_at, updated_at, created_by)
     SELECT u.id, $1, $2, u.text, u.model, 'model', $3, $3, 'model'
       FROM unnest($4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS u(id, text, model, ord) ORDER BY u.ord`,
    [
      frame.id,
      frame.media_id,
      at,
      captions.map((c) => c.id),
      captions.map((c) => c.text),
      captions.map((c) => c.model),
    ],
  );
}

/** Writes a frame's new model objects, then their embeddings (in the objects' order: faces queue in it). */
async function insertModelObjects(tx: PgRunner, frame: FrameOfMedia, objects: NewObject[], at: string): Promise<void> {
  if (objects.length === 0) return;
  await tx.query(
    `INSERT INTO detected_objects (id, frame_id, media_id, type, label, blob_key, polygon, confidence, model,
       similarity_model, source, created_at, updated_at)
     SELECT u.id, $1, $2, u.type, u.label, u.blob_key, u.polygon::json, u.confidence, u.model, u.similarity_model,
            'model', $3, $3
       FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::float8[], $10::text[], $11::text[])
            WITH ORDINALITY AS u(id, type, label, blob_key, polygon, confidence, model, similarity_model, ord)
      ORDER BY u.ord`,
    [
      frame.id,
      frame.media_id,
      at,
      objects.map((o) => o.id),
      objects.map((o) => o.type),
      objects.map((o) => o.label),
      objects.map((o) => o.blobKey),
      objects.map((o) => JSON.stringify(o.polygon)),
      objects.map((o) => o.confidence),
      objects.map((o) => o.model),
      objects.map((o) => o.similarityModel),
    ],
  );
  const embedded = objects.filter((o) => o.embedding && o.similarityModel);
  if (embedded.length === 0) return;
  await tx.query(
    `INSERT INTO object_embeddings (object_id, model_id, similarity_model, media_id, dataset_id, dims, vector, created_at)
     SELECT u.object_id, u.model_id, u.similarity_model, $1, $2, u.dims, u.vector, $3
       FROM unnest($4::text[], $5::text[], $6::text[], $7::int[], $8::bytea[])
            WITH ORDINALITY AS u(object_id, model_id, similarity_model, dims, vector, ord)
      ORDER BY u.ord`,
    [
      frame.media_id,
      frame.dataset_id,
      at,
      embedded.map((o) => o.id),
      embedded.map((o) => o.embedding!.modelId),
      embedded.map((o) => o.similarityModel),
      embedded.map((o) => o.embedding!.vector.length),
      embedded.map((o) => vectorToBlob(o.embedding!.vector)),
    ],
  );
}

type EmbeddingRow = Parameters<AnalysisStore['addEmbeddings']>[0][number];

/** Adds or replaces embeddings of existing objects (the last row wins for one object and model). */
async function upsertEmbeddings(tx: PgRunner, rows: EmbeddingRow[], at: string): Promise<void> {
  const last = new Map(rows.map((r) => [`${r.objectId}\u0000${r.modelId}`, r]));
  const unique = [...last.values()];
  const params = [
    at,
    unique.map((r) => r.objectId),
    unique.map((r) => r.modelId),
    unique.map((r) => r.similarityModel),
    unique.map((r) => r.vector.length),
    unique.map((r) => vectorToBlob(r.vector)),
  ];
  await tx.query(
    `INSERT INTO object_embeddings (object_id, model_id, similarity_model, media_id, dataset_id, dims, vector, created_at)
     SELECT u.object_id, u.model_id, u.similarity_model, o.media_id, m.dataset_id, u.dims, u.vector, $1
       FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::bytea[])
            WITH ORDINALITY AS u(object_id, model_id, similarity_model, dims, vector, ord)
       JOIN detected_objects o ON o.id = u.object_id
       JOIN media m ON m.id = o.media_id
      ORDER BY u.ord
     ON CONFLICT (object_id, model_id) DO UPDATE SET similarity_model = excluded.similarity_model,
       media_id = excluded.media_id, dataset_id = excluded.dataset_id, dims = excluded.dims,
       vector = excluded.vector, created_at = excluded.created_at`,
    params,
  );
  // A crop stored without a vector (embedded on first use) is an object of this similarity model from now on.
  await tx.query(
    `UPDATE detected_objects o SET similarity_model = u.similarity_model
       FROM unnest($1::text[], $2::text[]) AS u(object_id, similarity_model)
      WHERE o.id = u.object_id AND o.similarity_model IS NULL`,
    [params[1], params[3]],
  );
}

export function pgObjectWrites(
  db: PgDb,
): Pick<AnalysisStore, 'replaceFrameAnalysis' | 'replaceModelObjects' | 'addEmbeddings'> {
  return {
    replaceFrameAnalysis: (frameId, result) =>
      db.tx(async (tx) => {
        const frame = await lockFrame(tx, frameId);
        const at = new Date().toISOString();
        await dropModelRows(tx, frameId);
        await insertCaptions(tx, frame, result.captions, at);
        await insertModelObjects(tx, frame, result.objects, at);
      }),
    replaceModelObjects: async (frameId, type, objects) => {
      if (objects.some((o) => o.type !== type))
        throw new Error('replaceModelObjects: every object must be of the type');
      await db.tx(async (tx) => {
        const frame = await lockFrame(tx, frameId);
        await dropModelRows(tx, frameId, type);
        await insertModelObjects(tx, frame, objects, new Date().toISOString());
      });
    },
    addEmbeddings: async (rows) => {
      if (rows.length === 0) return;
      await db.tx((tx) => upsertEmbeddings(tx, rows, new Date().toISOString()));
    },
  };
}
