/**
 * The analysis store on SQLite, in three parts over one AnalysisCore: the
 * frames of an item (frameSync), what the models found on them (modelResults)
 * and the user's corrections (userEdits); beside them the frames' renditions
 * (renditionStore.ts) and the item's stages (stageStore.ts).
 */
import type { Statement } from 'better-sqlite3';
import { notFound } from '../../platform/errors.js';
import type { AnalysisStore } from '../storage.js';
import type { NewCaption, NewFrame, NewObject } from '../types.js';
import type { VectorRow } from '../../index/vector/types.js';
import type { EventWriter } from '../eventWriter.js';
import type { IndexWriters } from '../indexWriters.js';
import type { Db } from './database.js';
import { frameInserter } from './frameInsert.js';
import { frameRenditions } from './renditionStore.js';
import { analysisStages } from './stageStore.js';
import { toFrame, toObject, type FrameRow, type ObjectRow } from './rows.js';

const now = () => new Date().toISOString();

/** Matches the ids of the one parameter, a JSON array. */
const IN_IDS = `IN (SELECT value FROM json_each(?))`;

/** What the parts of the analysis store share, made once per store. */
interface AnalysisCore {
  db: Db;
  writers: IndexWriters;
  /** An item's active frames, in time order. */
  activeFrames(mediaId: string): FrameRow[];
}

export function sqliteAnalysisStore(db: Db, writers: IndexWriters, events: EventWriter): AnalysisStore {
  const activeFrames = db.prepare(`SELECT * FROM frames WHERE media_id = ? AND status = 'active' ORDER BY seconds, id`);
  const core: AnalysisCore = { db, writers, activeFrames: (mediaId) => activeFrames.all(mediaId) as FrameRow[] };
  return {
    ...frameSync(core),
    ...modelResults(core),
    ...frameVectors(core),
    ...modelObjects(core),
    ...userEdits(core),
    ...analysisStages(db, events),
    ...frameRenditions(db, events),
  };
}

/** Deletes frames gone from a re-extraction, with their captions, objects and embeddings. */
function retireFrames({ db, writers }: AnalysisCore, mediaId: string, gone: string[], at: string) {
  const { vectors, text } = writers;
  const ids = JSON.stringify(gone);
  db.prepare(`UPDATE frames SET status = 'deleted', updated_at = ? WHERE id ${IN_IDS}`).run(at, ids);
  // The frames' captions and OCR rows leave the text index with them (and stay out: the frames are
  // deleted), so the status changes of their captions and objects below have nothing left to drop.
  text.reindexFrames(mediaId, gone);
  db.prepare(`UPDATE captions SET status = 'deleted', updated_at = ? WHERE frame_id ${IN_IDS}`).run(at, ids);
  db.prepare(`UPDATE detected_objects SET status = 'deleted', updated_at = ? WHERE frame_id ${IN_IDS}`).run(at, ids);
  vectors.remove(db.prepare(`SELECT id FROM detected_objects WHERE frame_id ${IN_IDS}`).pluck().all(ids) as string[]);
  db.prepare(
    `DELETE FROM object_embeddings WHERE object_id IN (SELECT id FROM detected_objects WHERE frame_id ${IN_IDS})`,
  ).run(ids);
}

/** An item's frames: replaced by a re-extraction, listed, read one by one. */
function frameSync(core: AnalysisCore): Pick<AnalysisStore, 'syncFrames' | 'framesOf' | 'getFrame'> {
  const { db, activeFrames } = core;
  const insertFrame = frameInserter(db);

  const syncFrames = db.transaction((mediaId: string, frames: NewFrame[], userId: string) => {
    const at = now();
    const existing = new Map(activeFrames(mediaId).map((frame) => [frame.timestamp, frame]));
    const keep = new Set<string>();
    for (const frame of frames) {
      const old = existing.get(frame.timestamp);
      if (old) {
        // Renditions describe the file: another file (the SET sees the old blob_key) needs new ones.
        db.prepare(
          `UPDATE frames SET blob_key = @blobKey, width = @width, height = @height, updated_at = @at,
             thumbnail_key = CASE WHEN blob_key = @blobKey THEN thumbnail_key END,
             preview_key = CASE WHEN blob_key = @blobKey THEN preview_key END
           WHERE id = @id`,
        ).run({ blobKey: frame.blobKey, width: frame.width, height: frame.height, at, id: old.id });
        keep.add(old.id);
      } else {
        insertFrame(mediaId, frame, at, userId);
        keep.add(frame.id);
      }
    }
    const gone = [...existing.values()].filter((frame) => !keep.has(frame.id)).map((frame) => frame.id);
    if (gone.length) retireFrames(core, mediaId, gone, at);
    return activeFrames(mediaId).map(toFrame);
  });

  return {
    syncFrames: async (mediaId, frames, userId) => syncFrames(mediaId, frames, userId),
    framesOf: async (mediaId) => activeFrames(mediaId).map(toFrame),
    getFrame: async (id) => {
      const row = db.prepare(`SELECT * FROM frames WHERE id = ?`).get(id) as FrameRow | undefined;
      return row ? toFrame(row) : null;
    },
  };
}

/**
 * Deletes what the model made on these frames (captions, objects, embeddings); the user's rows stay. With
 * `objectType`, only the model's objects of that type (and their embeddings) go; captions stay.
 */
function dropModelRows({ db, writers }: AnalysisCore, frameIds: string[], objectType?: string) {
  const ids = JSON.stringify(frameIds);
  const ofType = objectType === undefined ? '' : 'AND type = @type';
  const params = objectType === undefined ? { ids } : { ids, type: objectType };
  const objects = `SELECT id FROM detected_objects WHERE frame_id IN (SELECT value FROM json_each(@ids))
    AND source = 'model' ${ofType}`;
  const objectIds = db.prepare(objects).pluck().all(params) as string[];
  writers.vectors.remove(objectIds);
  writers.text.dropObjects(objectIds);
  db.prepare(`DELETE FROM object_embeddings WHERE object_id IN (${objects})`).run(params);
  db.prepare(`DELETE FROM detected_objects WHERE id IN (${objects})`).run(params);
  if (objectType !== undefined) return;
  writers.text.dropCaptions(
    db.prepare(`SELECT id FROM captions WHERE frame_id ${IN_IDS} AND source = 'model'`).pluck().all(ids) as string[],
  );
  db.prepare(`DELETE FROM captions WHERE frame_id ${IN_IDS} AND source = 'model'`).run(ids);
}

const EMBEDDING_INSERT = `INTO object_embeddings
  (object_id, model_id, similarity_model, media_id, dataset_id, dims, vector, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/** Writes one embedding row with `insert` (an INSERT of EMBEDDING_INSERT); returns the row for the vector index. */
function writeEmbedding(insert: Statement, row: VectorRow, at: string): VectorRow {
  const vector = row.vector;
  const bytes = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  insert.run(row.objectId, row.modelId, row.similarityModel, row.mediaId, row.collectionId, vector.length, bytes, at);
  return row;
}

type FrameOfMedia = { id: string; media_id: string; dataset_id: string };

/** Writes a frame's new model objects with their embeddings; returns the embeddings for the vector index. */
function insertModelObjects({ db, writers }: AnalysisCore, frame: FrameOfMedia, objects: NewObject[], at: string) {
  const insertObject = db.prepare(
    `INSERT INTO detected_objects (id, frame_id, media_id, type, label, blob_key, polygon, confidence, model,
       similarity_model, source, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'model', ?, ?)`,
  );
  const insertVector = db.prepare(`INSERT ${EMBEDDING_INSERT}`);
  const indexed: VectorRow[] = [];
  for (const object of objects) {
    insertObject.run(
      object.id,
      frame.id,
      frame.media_id,
      object.type,
      object.label,
      object.blobKey,
      JSON.stringify(object.polygon),
      object.confidence,
      object.model,
      object.similarityModel,
      at,
      at,
    );
    if (object.type === 'text') writers.text.reindexObjects([object.id]);
    if (object.embedding && object.similarityModel) {
      const row: VectorRow = {
        objectId: object.id,
        modelId: object.embedding.modelId,
        similarityModel: object.similarityModel,
        mediaId: frame.media_id,
        collectionId: frame.dataset_id,
        frameId: frame.id,
        vector: object.embedding.vector,
      };
      indexed.push(writeEmbedding(insertVector, row, at));
    }
  }
  return indexed;
}

/** One type of the model's objects on a frame replaced (phase 2 of ingest: the whole-frame object). */
function modelObjects(core: AnalysisCore): Pick<AnalysisStore, 'replaceModelObjects'> {
  const { db, writers } = core;
  const replaceModelObjects = db.transaction((frameId: string, type: string, objects: NewObject[]) => {
    const frame = db
      .prepare(`SELECT f.id, f.media_id, m.dataset_id FROM frames f JOIN media m ON m.id = f.media_id WHERE f.id = ?`)
      .get(frameId) as FrameOfMedia | undefined;
    if (!frame) throw notFound('frame not found');
    dropModelRows(core, [frameId], type);
    writers.vectors.upsert(insertModelObjects(core, frame, objects, now()));
  });

  return {
    replaceModelObjects: async (frameId, type, objects) => {
      if (objects.some((o) => o.type !== type))
        throw new Error('replaceModelObjects: every object must be of the type');
      replaceModelObjects(frameId, type, objects);
    },
  };
}

/** What the models found: a frame's captions and objects replaced, embeddings added and read. */
function modelResults(
  core: AnalysisCore,
): Pick<AnalysisStore, 'replaceFrameAnalysis' | 'addEmbeddings' | 'objectVector' | 'objectsToReembed'> {
  const { db, writers } = core;

  const replaceFrameAnalysis = db.transaction(
    (frameId: string, result: Parameters<AnalysisStore['replaceFrameAnalysis']>[1]) => {
      const frame = db
        .prepare(`SELECT f.id, f.media_id, m.dataset_id FROM frames f JOIN media m ON m.id = f.media_id WHERE f.id = ?`)
        .get(frameId) as FrameOfMedia | undefined;
      if (!frame) throw notFound('frame not found');
      const at = now();
      dropModelRows(core, [frameId]);
      const insertCaption = db.prepare(
        `INSERT INTO captions (id, frame_id, media_id, text, model, source, created_at, updated_at, created_by)
         VALUES (?, ?, ?, ?, ?, 'model', ?, ?, 'model')`,
      );
      for (const caption of result.captions) {
        insertCaption.run(caption.id, frameId, frame.media_id, caption.text, caption.model, at, at);
        writers.text.reindexCaptions([caption.id]);
      }
      writers.vectors.upsert(insertModelObjects(core, frame, result.objects, at));
    },
  );

  const addEmbeddings = db.transaction((rows: Parameters<AnalysisStore['addEmbeddings']>[0]) => {
    const at = now();
    const indexed: VectorRow[] = [];
    for (const row of rows) {
      const object = db
        .prepare(
          `SELECT o.media_id, o.frame_id, m.dataset_id FROM detected_objects o JOIN media m ON m.id = o.media_id
           WHERE o.id = ?`,
        )
        .get(row.objectId) as { media_id: string; frame_id: string; dataset_id: string } | undefined;
      if (!object) continue;
      const { objectId, modelId, similarityModel, vector } = row;
      const vectorRow: VectorRow = {
        objectId,
        modelId,
        similarityModel,
        mediaId: object.media_id,
        collectionId: object.dataset_id,
        frameId: object.frame_id,
        vector,
      };
      indexed.push(writeEmbedding(db.prepare(`INSERT OR REPLACE ${EMBEDDING_INSERT}`), vectorRow, at));
      // A crop stored without a vector (embedded on first use) is an object of this similarity model from now on.
      db.prepare(`UPDATE detected_objects SET similarity_model = ? WHERE id = ? AND similarity_model IS NULL`).run(
        similarityModel,
        objectId,
      );
    }
    writers.vectors.upsert(indexed);
  });

  return {
    replaceFrameAnalysis: async (frameId, result) => replaceFrameAnalysis(frameId, result),
    addEmbeddings: async (rows) => addEmbeddings(rows),
    objectVector: async (objectId, similarityModel) => {
      const row = db
        .prepare(
          `SELECT model_id, vector FROM object_embeddings WHERE object_id = ? AND similarity_model = ?
           ORDER BY created_at DESC LIMIT 1`,
        )
        .get(objectId, similarityModel) as { model_id: string; vector: Buffer } | undefined;
      if (!row) return null;
      const copy = new Uint8Array(row.vector); // aligned copy for the Float32Array view
      return { modelId: row.model_id, vector: new Float32Array(copy.buffer, 0, copy.byteLength / 4) };
    },
    objectsToReembed: async (mediaId) =>
      db
        .prepare(
          `SELECT o.id AS objectId, o.blob_key AS blobKey FROM detected_objects o JOIN frames f ON f.id = o.frame_id
           WHERE o.media_id = ? AND o.status = 'active' AND f.status = 'active' AND o.similarity_model = 'objects'
             AND o.blob_key IS NOT NULL`,
        )
        .all(mediaId) as Array<{ objectId: string; blobKey: string }>,
  };
}

/** The user's corrections: objects relabelled or deleted, captions added; and single objects read. */
function userEdits({
  db,
  writers,
}: AnalysisCore): Pick<AnalysisStore, 'getObject' | 'correctObject' | 'addUserCaption' | 'userObjects'> {
  const getObject = (id: string) =>
    db.prepare(`SELECT * FROM detected_objects WHERE id = ?`).get(id) as ObjectRow | undefined;

  const correctObject = db.transaction((id: string, change: Parameters<AnalysisStore['correctObject']>[1]) => {
    const at = now();
    const before = db.prepare(`SELECT label, status FROM detected_objects WHERE id = ?`).get(id) as
      Pick<ObjectRow, 'label' | 'status'> | undefined;
    if ('deleted' in change) {
      writers.vectors.remove([id]);
      db.prepare(`UPDATE detected_objects SET source = 'user', status = 'deleted', updated_at = ? WHERE id = ?`).run(
        at,
        id,
      );
    } else {
      db.prepare(`UPDATE detected_objects SET source = 'user', label = ?, updated_at = ? WHERE id = ?`).run(
        change.label,
        at,
        id,
      );
    }
    const row = getObject(id);
    if (!row) throw notFound('object not found');
    // An OCR text object's row in the text index follows its label and status.
    if (before && (before.label !== row.label || before.status !== row.status)) writers.text.reindexObjects([id]);
    return toObject(row);
  });

  const addUserCaption = db.transaction((frameId: string, caption: NewCaption, userId: string) => {
    const at = now();
    const inserted = db
      .prepare(
        `INSERT INTO captions (id, frame_id, media_id, text, model, source, created_at, updated_at, created_by)
         SELECT ?, id, media_id, ?, ?, 'user', ?, ?, ? FROM frames WHERE id = ?`,
      )
      .run(caption.id, caption.text, caption.model, at, at, userId, frameId);
    if (inserted.changes > 0) writers.text.reindexCaptions([caption.id]);
  });

  return {
    getObject: async (id) => {
      const row = getObject(id);
      return row ? toObject(row) : null;
    },
    correctObject: async (id, change) => correctObject(id, change),
    addUserCaption: async (frameId, caption, userId) => addUserCaption(frameId, caption, userId),
    userObjects: async (frameId) =>
      (
        db
          .prepare(`SELECT * FROM detected_objects WHERE frame_id = ? AND source = 'user' ORDER BY created_at, id`)
          .all(frameId) as ObjectRow[]
      ).map(toObject),
  };
}

/** The whole-frame vector phase 2 of ingest stored, read back by phase 3. */
function frameVectors(core: AnalysisCore): Pick<AnalysisStore, 'frameVector'> {
  const { db } = core;
  return {
    frameVector: async (frameId, modelId) => {
      const blob = db
        .prepare(
          `SELECT e.vector FROM detected_objects o JOIN object_embeddings e ON e.object_id = o.id AND e.model_id = ?
           WHERE o.frame_id = ? AND o.type = 'frame' AND o.status = 'active' LIMIT 1`,
        )
        .pluck()
        .get(modelId, frameId) as Buffer | undefined;
      if (!blob) return null;
      const copy = new Uint8Array(blob); // aligned copy for the Float32Array view
      return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
    },
  };
}
