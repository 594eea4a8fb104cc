import { notFound } from '../../platform/errors.js';
import type { AnalysisStore } from '../storage.js';
import type { NewCaption } from '../types.js';
import type { VectorRow } from '../../index/vector/types.js';
import type { IndexWriters } from '../indexWriters.js';
import type { Db } from './database.js';
import { toFrame, toObject, type FrameRow, type ObjectRow } from './rows.js';

const now = () => new Date().toISOString();

export function sqliteAnalysisStore(db: Db, writers: IndexWriters): AnalysisStore {
  const { vectors, text } = writers;
  const activeFrames = db.prepare(`SELECT * FROM frames WHERE media_id = ? AND status = 'active' ORDER BY seconds, id`);

  /** Deletes what the model made on these frames (captions, objects, embeddings); the user's rows stay. */
  const dropModelRows = (frameIds: string[]) => {
    const ids = JSON.stringify(frameIds);
    const objectIds = db
      .prepare(
        `SELECT id FROM detected_objects WHERE frame_id IN (SELECT value FROM json_each(?)) AND source = 'model'`,
      )
      .pluck()
      .all(ids) as string[];
    vectors.remove(objectIds);
    text.dropObjects(objectIds);
    text.dropCaptions(
      db
        .prepare(`SELECT id FROM captions WHERE frame_id IN (SELECT value FROM json_each(?)) AND source = 'model'`)
        .pluck()
        .all(ids) as string[],
    );
    db.prepare(
      `DELETE FROM object_embeddings WHERE object_id IN
         (SELECT id FROM detected_objects WHERE frame_id IN (SELECT value FROM json_each(?)) AND source = 'model')`,
    ).run(ids);
    db.prepare(
      `DELETE FROM detected_objects WHERE frame_id IN (SELECT value FROM json_each(?)) AND source = 'model'`,
    ).run(ids);
    db.prepare(`DELETE FROM captions WHERE frame_id IN (SELECT value FROM json_each(?)) AND source = 'model'`).run(ids);
  };

  const syncFrames = db.transaction(
    (mediaId: string, frames: Parameters<AnalysisStore['syncFrames']>[1], userId: string) => {
      const at = now();
      const existing = new Map((activeFrames.all(mediaId) as FrameRow[]).map((f) => [f.timestamp, f]));
      const keep = new Set<string>();
      for (const f of frames) {
        const old = existing.get(f.timestamp);
        if (old) {
          db.prepare(`UPDATE frames SET blob_key = ?, width = ?, height = ?, updated_at = ? WHERE id = ?`).run(
            f.blobKey,
            f.width,
            f.height,
            at,
            old.id,
          );
          keep.add(old.id);
        } else {
          db.prepare(
            `INSERT INTO frames (id, media_id, timestamp, seconds, blob_key, width, height, metadata, created_at, updated_at, created_by)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          ).run(
            f.id,
            mediaId,
            f.timestamp,
            Number(f.timestamp) || 0,
            f.blobKey,
            f.width,
            f.height,
            JSON.stringify(f.metadata ?? {}),
            at,
            at,
            userId,
          );
          keep.add(f.id);
        }
      }
      const gone = [...existing.values()].filter((f) => !keep.has(f.id)).map((f) => f.id);
      if (gone.length) {
        const ids = JSON.stringify(gone);
        db.prepare(
          `UPDATE frames SET status = 'deleted', updated_at = ? WHERE id IN (SELECT value FROM json_each(?))`,
        ).run(at, ids);
        // The frames' captions and OCR rows leave the text index with them (and stay out: the frames are
        // deleted), so the status changes of their captions and objects below have nothing left to drop.
        text.reindexFrames(mediaId, gone);
        db.prepare(
          `UPDATE captions SET status = 'deleted', updated_at = ? WHERE frame_id IN (SELECT value FROM json_each(?))`,
        ).run(at, ids);
        db.prepare(
          `UPDATE detected_objects SET status = 'deleted', updated_at = ? WHERE frame_id IN (SELECT value FROM json_each(?))`,
        ).run(at, ids);
        vectors.remove(
          db
            .prepare(`SELECT id FROM detected_objects WHERE frame_id IN (SELECT value FROM json_each(?))`)
            .pluck()
            .all(ids) as string[],
        );
        db.prepare(
          `DELETE FROM object_embeddings WHERE object_id IN (SELECT id FROM detected_objects WHERE frame_id IN (SELECT value FROM json_each(?)))`,
        ).run(ids);
      }
      return (activeFrames.all(mediaId) as FrameRow[]).map(toFrame);
    },
  );

  const replaceFrameAnalysis = db.transaction(
    (frameId: string, result: Parameters<AnalysisStore['replaceFrameAnalysis']>[1]) => {
      const frame = db
        .prepare(`SELECT f.id, f.media_id, m.dataset_id FROM frames f JOIN media m ON m.id = f.media_id WHERE f.id = ?`)
        .get(frameId) as { id: string; media_id: string; dataset_id: string } | undefined;
      if (!frame) throw notFound('frame not found');
      const at = now();
      dropModelRows([frameId]);
      const insertCaption = db.prepare(
        `INSERT INTO captions (id, frame_id, media_id, text, model, source, created_at, updated_at, created_by) VALUES (?, ?, ?, ?, ?, 'model', ?, ?, 'model')`,
      );
      for (const c of result.captions) {
        insertCaption.run(c.id, frameId, frame.media_id, c.text, c.model, at, at);
        text.reindexCaptions([c.id]);
      }
      const insertObject = db.prepare(
        `INSERT INTO detected_objects (id, frame_id, media_id, type, label, blob_key, polygon, confidence, model, similarity_model, source, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'model', ?, ?)`,
      );
      const insertVector = db.prepare(
        `INSERT INTO object_embeddings (object_id, model_id, similarity_model, media_id, dataset_id, dims, vector, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const indexed: VectorRow[] = [];
      for (const o of result.objects) {
        insertObject.run(
          o.id,
          frameId,
          frame.media_id,
          o.type,
          o.label,
          o.blobKey,
          JSON.stringify(o.polygon),
          o.confidence,
          o.model,
          o.similarityModel,
          at,
          at,
        );
        if (o.type === 'text') text.reindexObjects([o.id]);
        if (o.embedding && o.similarityModel) {
          const v = o.embedding.vector;
          insertVector.run(
            o.id,
            o.embedding.modelId,
            o.similarityModel,
            frame.media_id,
            frame.dataset_id,
            v.length,
            Buffer.from(v.buffer, v.byteOffset, v.byteLength),
            at,
          );
          indexed.push({
            objectId: o.id,
            modelId: o.embedding.modelId,
            similarityModel: o.similarityModel,
            mediaId: frame.media_id,
            collectionId: frame.dataset_id,
            frameId,
            vector: v,
          });
        }
      }
      vectors.upsert(indexed);
    },
  );

  const addEmbeddings = db.transaction((rows: Parameters<AnalysisStore['addEmbeddings']>[0]) => {
    const at = now();
    const indexed: VectorRow[] = [];
    for (const r of rows) {
      const o = db
        .prepare(
          `SELECT o.media_id, o.frame_id, m.dataset_id FROM detected_objects o JOIN media m ON m.id = o.media_id WHERE o.id = ?`,
        )
        .get(r.objectId) as { media_id: string; frame_id: string; dataset_id: string } | undefined;
      if (!o) continue;
      const v = r.vector;
      db.prepare(
        `INSERT OR REPLACE INTO object_embeddings (object_id, model_id, similarity_model, media_id, dataset_id, dims, vector, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        r.objectId,
        r.modelId,
        r.similarityModel,
        o.media_id,
        o.dataset_id,
        v.length,
        Buffer.from(v.buffer, v.byteOffset, v.byteLength),
        at,
      );
      indexed.push({
        objectId: r.objectId,
        modelId: r.modelId,
        similarityModel: r.similarityModel,
        mediaId: o.media_id,
        collectionId: o.dataset_id,
        frameId: o.frame_id,
        vector: v,
      });
    }
    vectors.upsert(indexed);
  });

  const correctObject = db.transaction((id: string, change: Parameters<AnalysisStore['correctObject']>[1]) => {
    const at = now();
    const before = db.prepare(`SELECT label, status FROM detected_objects WHERE id = ?`).get(id) as
      Pick<ObjectRow, 'label' | 'status'> | undefined;
    if ('deleted' in change) {
      vectors.remove([id]);
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
    const row = db.prepare(`SELECT * FROM detected_objects WHERE id = ?`).get(id) as ObjectRow | undefined;
    if (!row) throw notFound('object not found');
    // An OCR text object's row in the text index follows its label and status.
    if (before && (before.label !== row.label || before.status !== row.status)) text.reindexObjects([id]);
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
    if (inserted.changes > 0) text.reindexCaptions([caption.id]);
  });

  return {
    syncFrames: async (mediaId, frames, userId) => syncFrames(mediaId, frames, userId),
    framesOf: async (mediaId) => (activeFrames.all(mediaId) as FrameRow[]).map(toFrame),
    replaceFrameAnalysis: async (frameId, result) => replaceFrameAnalysis(frameId, result),
    getObject: async (id) => {
      const row = db.prepare(`SELECT * FROM detected_objects WHERE id = ?`).get(id) as ObjectRow | undefined;
      return row ? toObject(row) : null;
    },
    objectVector: async (objectId, similarityModel) => {
      const row = db
        .prepare(
          `SELECT model_id, vector FROM object_embeddings WHERE object_id = ? AND similarity_model = ? ORDER BY created_at DESC LIMIT 1`,
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
           WHERE o.media_id = ? AND o.status = 'active' AND f.status = 'active' AND o.similarity_model = 'objects' AND o.blob_key IS NOT NULL`,
        )
        .all(mediaId) as Array<{ objectId: string; blobKey: string }>,
    addEmbeddings: async (rows) => addEmbeddings(rows),
    getFrame: async (id) => {
      const row = db.prepare(`SELECT * FROM frames WHERE id = ?`).get(id) as FrameRow | undefined;
      return row ? toFrame(row) : null;
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
