/**
 * An item's frames on PostgreSQL: written in bulk (one INSERT over unnest), replaced by a re-extraction
 * (syncFrames), listed and read one by one. SQLite: src/storage/sqlite/analysisStore.ts (frameSync).
 */
import type { PgDb, PgRunner } from '../../platform/pgDb.js';
import type { AnalysisStore } from '../storage.js';
import type { NewFrame } from '../types.js';
import { toFrame, type FrameRow } from '../sqlite/rows.js';

/** A frames row as toFrame reads it (json as its text, as SQLite gives it). */
export const FRAME_COLUMNS = `id, media_id, timestamp, blob_key, width, height, thumbnail_key, preview_key, status,
  metadata::text AS metadata, created_at, updated_at, created_by`;

const ACTIVE_FRAMES = `SELECT ${FRAME_COLUMNS} FROM frames WHERE media_id = $1 AND status = 'active' ORDER BY seconds, id`;

/** An item's active frames, in time order. */
export async function activeFrames(db: PgRunner, mediaId: string): Promise<FrameRow[]> {
  return db.many<FrameRow>(ACTIVE_FRAMES, [mediaId]);
}

/**
 * Writes new frame rows of an item in one statement (`seconds` is the timestamp as a number, for ordering).
 * The media store can write an item's first frames with it too.
 */
export async function insertFrames(
  tx: PgRunner,
  mediaId: string,
  frames: NewFrame[],
  at: string,
  createdBy: string,
): Promise<void> {
  if (frames.length === 0) return;
  await tx.query(
    `INSERT INTO frames (id, media_id, timestamp, seconds, blob_key, width, height, metadata,
       created_at, updated_at, created_by)
     SELECT u.id, $1, u.ts, u.seconds, u.blob_key, u.width, u.height, u.metadata::json, $2, $2, $3
       FROM unnest($4::text[], $5::text[], $6::float8[], $7::text[], $8::int[], $9::int[], $10::text[])
            AS u(id, ts, seconds, blob_key, width, height, metadata)`,
    [
      mediaId,
      at,
      createdBy,
      frames.map((f) => f.id),
      frames.map((f) => f.timestamp),
      frames.map((f) => Number(f.timestamp) || 0),
      frames.map((f) => f.blobKey),
      frames.map((f) => f.width),
      frames.map((f) => f.height),
      frames.map((f) => JSON.stringify(f.metadata ?? {})),
    ],
  );
}

/** Deletes frames gone from a re-extraction, with their captions, objects and embeddings. */
async function retireFrames(tx: PgRunner, gone: string[], at: string): Promise<void> {
  await tx.query(`UPDATE frames SET status = 'deleted', updated_at = $2 WHERE id = ANY ($1)`, [gone, at]);
  await tx.query(`UPDATE captions SET status = 'deleted', updated_at = $2 WHERE frame_id = ANY ($1)`, [gone, at]);
  // Faces leave their clusters here (040's triggers), before their embeddings go.
  await tx.query(`UPDATE detected_objects SET status = 'deleted', updated_at = $2 WHERE frame_id = ANY ($1)`, [
    gone,
    at,
  ]);
  await tx.query(
    `DELETE FROM object_embeddings WHERE object_id IN (SELECT id FROM detected_objects WHERE frame_id = ANY ($1))`,
    [gone],
  );
}

/** Kept frames get the new file; renditions describe the file, so another file (the SET sees the old blob_key) drops them. */
async function updateKept(tx: PgRunner, kept: Array<{ id: string; frame: NewFrame }>, at: string): Promise<void> {
  if (kept.length === 0) return;
  await tx.query(
    `UPDATE frames f SET blob_key = u.blob_key, width = u.width, height = u.height, updated_at = $1,
       thumbnail_key = CASE WHEN f.blob_key = u.blob_key THEN f.thumbnail_key END,
       preview_key = CASE WHEN f.blob_key = u.blob_key THEN f.preview_key END
     FROM unnest($2::text[], $3::text[], $4::int[], $5::int[]) AS u(id, blob_key, width, height)
     WHERE f.id = u.id`,
    [
      at,
      kept.map((k) => k.id),
      kept.map((k) => k.frame.blobKey),
      kept.map((k) => k.frame.width),
      kept.map((k) => k.frame.height),
    ],
  );
}

export function pgFrameSync(db: PgDb): Pick<AnalysisStore, 'syncFrames' | 'framesOf' | 'getFrame'> {
  return {
    syncFrames: (mediaId, frames, userId) =>
      db.tx(async (tx) => {
        const at = new Date().toISOString();
        // The item's row lock: two re-extractions of one item take turns instead of both adding frames.
        await tx.query(`SELECT 1 FROM media WHERE id = $1 FOR UPDATE`, [mediaId]);
        const existing = new Map((await activeFrames(tx, mediaId)).map((f) => [f.timestamp, f]));
        const kept: Array<{ id: string; frame: NewFrame }> = [];
        const added: NewFrame[] = [];
        for (const frame of frames) {
          const old = existing.get(frame.timestamp);
          if (old) kept.push({ id: old.id, frame });
          else added.push(frame);
        }
        const keep = new Set(kept.map((k) => k.id));
        const gone = [...existing.values()].filter((f) => !keep.has(f.id)).map((f) => f.id);
        await updateKept(tx, kept, at);
        await insertFrames(tx, mediaId, added, at, userId);
        if (gone.length) await retireFrames(tx, gone, at);
        return (await activeFrames(tx, mediaId)).map(toFrame);
      }),
    framesOf: async (mediaId) => (await activeFrames(db, mediaId)).map(toFrame),
    getFrame: async (id) => {
      const row = await db.one<FrameRow>(`SELECT ${FRAME_COLUMNS} FROM frames WHERE id = $1`, [id]);
      return row ? toFrame(row) : null;
    },
  };
}
