import type { NewFrame } from '../types.js';
import type { Db } from './database.js';

/** Writes one new frame row of an item (`seconds` is the timestamp as a number, for ordering). */
export type FrameInserter = (mediaId: string, frame: NewFrame, at: string, createdBy: string) => void;

/**
 * The one frames INSERT, prepared once per store: the media store writes an
 * item's first frames with it, the analysis store the frames a re-extraction adds.
 */
export function frameInserter(db: Db): FrameInserter {
  const insert = db.prepare(
    `INSERT INTO frames (id, media_id, timestamp, seconds, blob_key, width, height, metadata,
       created_at, updated_at, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return (mediaId, frame, at, createdBy) => {
    insert.run(
      frame.id,
      mediaId,
      frame.timestamp,
      Number(frame.timestamp) || 0,
      frame.blobKey,
      frame.width,
      frame.height,
      JSON.stringify(frame.metadata ?? {}),
      at,
      at,
      createdBy,
    );
  };
}
