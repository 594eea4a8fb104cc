/**
 * The analysis store on PostgreSQL, in parts: an item's frames (frameSync.ts), what the models wrote
 * (objectWrites.ts), the frames' renditions (renditions.ts), the item's stages (stages.ts); here the
 * reads of objects and vectors and the user's corrections. Face clusters and the search indexes follow
 * these tables through triggers (migration 040 and the indexes' own), so no index writer is called.
 * SQLite: src/storage/sqlite/analysisStore.ts.
 */
import { vectorFromBlob } from '../../index/faces/vectorBlob.js';
import { notFound } from '../../platform/errors.js';
import type { PgDb } from '../../platform/pgDb.js';
import { toObject, type ObjectRow } from '../sqlite/rows.js';
import type { AnalysisStore } from '../storage.js';
import type { PgEventHub } from './eventHub.js';
import { pgFrameSync } from './frameSync.js';
import { pgObjectWrites } from './objectWrites.js';
import { pgRenditions } from './renditions.js';
import { pgStages } from './stages.js';

/** A detected_objects row as toObject reads it (json as its text, as SQLite gives it). */
const OBJECT_COLUMNS = `id, frame_id, media_id, type, label, blob_key, polygon::text AS polygon, confidence, model,
  status, created_at`;

/** The analysis store on PostgreSQL; events it appends in its transactions are announced through `hub`. */
export function pgAnalysisStore(db: PgDb, hub: PgEventHub): AnalysisStore {
  return {
    ...pgFrameSync(db),
    ...pgObjectWrites(db),
    ...vectorReads(db),
    ...userEdits(db),
    ...pgStages(db, hub),
    ...pgRenditions(db, hub),
  };
}

/** Stored embeddings read back: an object's, a whole frame's; the objects to embed again. */
function vectorReads(db: PgDb): Pick<AnalysisStore, 'objectVector' | 'frameVector' | 'objectsToReembed'> {
  return {
    async objectVector(objectId, similarityModel) {
      const row = await db.one<{ model_id: string; vector: Buffer }>(
        `SELECT model_id, vector FROM object_embeddings WHERE object_id = $1 AND similarity_model = $2
         ORDER BY created_at DESC LIMIT 1`,
        [objectId, similarityModel],
      );
      return row ? { modelId: row.model_id, vector: vectorFromBlob(row.vector) } : null;
    },
    async frameVector(frameId, modelId) {
      const row = await db.one<{ vector: Buffer }>(
        `SELECT e.vector FROM detected_objects o JOIN object_embeddings e ON e.object_id = o.id AND e.model_id = $1
         WHERE o.frame_id = $2 AND o.type = 'frame' AND o.status = 'active' LIMIT 1`,
        [modelId, frameId],
      );
      return row ? vectorFromBlob(row.vector) : null;
    },
    objectsToReembed: (mediaId) =>
      db.many<{ objectId: string; blobKey: string }>(
        `SELECT o.id AS "objectId", o.blob_key AS "blobKey" FROM detected_objects o JOIN frames f ON f.id = o.frame_id
         WHERE o.media_id = $1 AND o.status = 'active' AND f.status = 'active' AND o.similarity_model = 'objects'
           AND o.blob_key IS NOT NULL`,
        [mediaId],
      ),
  };
}

/** The user's corrections: objects relabelled or deleted, captions added; and single objects read. */
function userEdits(db: PgDb): Pick<AnalysisStore, 'getObject' | 'correctObject' | 'addUserCaption' | 'userObjects'> {
  return {
    async getObject(id) {
      const row = await db.one<ObjectRow>(`SELECT ${OBJECT_COLUMNS} FROM detected_objects WHERE id = $1`, [id]);
      return row ? toObject(row) : null;
    },
    async correctObject(id, change) {
      // One statement, so no transaction: the object becomes the user's (reprocessing keeps it).
      const row =
        'deleted' in change
          ? await db.one<ObjectRow>(
              `UPDATE detected_objects SET source = 'user', status = 'deleted', updated_at = $2 WHERE id = $1
               RETURNING ${OBJECT_COLUMNS}`,
              [id, new Date().toISOString()],
            )
          : await db.one<ObjectRow>(
              `UPDATE detected_objects SET source = 'user', label = $3, updated_at = $2 WHERE id = $1
               RETURNING ${OBJECT_COLUMNS}`,
              [id, new Date().toISOString(), change.label],
            );
      if (!row) throw notFound('object not found');
      return toObject(row);
    },
    async addUserCaption(frameId, caption, userId) {
      const at = new Date().toISOString();
      await db.query(
        `INSERT INTO captions (id, frame_id, media_id, text, model, source, created_at, updated_at, created_by)
         SELECT $1, id, media_id, $2, $3, 'user', $4, $4, $5 FROM frames WHERE id = $6`,
        [caption.id, caption.text, caption.model, at, userId, frameId],
      );
    },
    async userObjects(frameId) {
      const rows = await db.many<ObjectRow>(
        `SELECT ${OBJECT_COLUMNS} FROM detected_objects WHERE frame_id = $1 AND source = 'user' ORDER BY created_at, id`,
        [frameId],
      );
      return rows.map(toObject);
    },
  };
}
