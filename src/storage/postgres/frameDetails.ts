import type { PgDb } from '../../platform/pgDb.js';
import { toCaption, toFrame, toObject } from '../sqlite/rows.js';
import type { MediaStore } from '../storage.js';
import type { FrameDetail } from '../types.js';
import {
  CAPTION_COLUMNS,
  FRAME_COLUMNS,
  OBJECT_COLUMNS,
  type CaptionRow,
  type FrameRow,
  type ObjectRow,
} from './mediaRows.js';

type FrameRef = { mediaId: string; frameId: string | null };

/**
 * Frame rows as details, by frame id, with their active captions and objects (each in created_at, id
 * order); `column` names what `ids` are: the items' (media_id) or the frames' own (id). Captions and
 * objects are read only when there are frames.
 */
async function details(db: PgDb, column: 'media_id' | 'id', ids: string[]): Promise<Map<string, FrameDetail>> {
  const byFrame = new Map<string, FrameDetail>();
  if (ids.length === 0) return byFrame;
  const frames = await db.many<FrameRow>(
    `SELECT ${FRAME_COLUMNS} FROM frames WHERE ${column} = ANY($1::text[]) AND status = 'active'
     ORDER BY media_id, seconds, id`,
    [ids],
  );
  for (const row of frames) byFrame.set(row.id, { ...toFrame(row), captions: [], objects: [] });
  if (frames.length === 0) return byFrame;
  const on = column === 'id' ? 'frame_id' : 'media_id';
  const [captions, objects] = await Promise.all([
    db.many<CaptionRow>(
      `SELECT ${CAPTION_COLUMNS} FROM captions WHERE ${on} = ANY($1::text[]) AND status = 'active' ORDER BY created_at, id`,
      [ids],
    ),
    db.many<ObjectRow>(
      `SELECT ${OBJECT_COLUMNS} FROM detected_objects WHERE ${on} = ANY($1::text[]) AND status = 'active'
       ORDER BY created_at, id`,
      [ids],
    ),
  ]);
  for (const caption of captions) byFrame.get(caption.frame_id)?.captions.push(toCaption(caption));
  for (const object of objects) byFrame.get(object.frame_id)?.objects.push(toObject(object));
  return byFrame;
}

/** The frames (with captions and objects) of items, and picked frames, each batch in a few statements. */
export function frameDetails(db: PgDb): Pick<MediaStore, 'frames' | 'pickFrames'> {
  return {
    async frames(mediaIds) {
      const out = new Map<string, FrameDetail[]>();
      for (const frame of (await details(db, 'media_id', mediaIds)).values()) {
        const list = out.get(frame.mediaId);
        if (list) list.push(frame);
        else out.set(frame.mediaId, [frame]);
      }
      return out;
    },

    async pickFrames(refs) {
      if (refs.length === 0) return [];
      const firstOf = new Map<string, string | null>();
      const wanted = [...new Set(refs.filter((ref) => ref.frameId === null).map((ref) => ref.mediaId))];
      if (wanted.length) {
        // The first active frame of each item in time, through frames_by_media (media_id, seconds).
        const firsts = await db.many<{ media_id: string; frame_id: string | null }>(
          `SELECT w.id AS media_id,
             (SELECT id FROM frames WHERE media_id = w.id AND status = 'active' ORDER BY seconds, id LIMIT 1) AS frame_id
           FROM unnest($1::text[]) AS w(id)`,
          [wanted],
        );
        for (const first of firsts) firstOf.set(first.media_id, first.frame_id);
      }
      const frameIdOf = (ref: FrameRef) => ref.frameId ?? firstOf.get(ref.mediaId) ?? null;
      const ids = [...new Set(refs.map(frameIdOf).filter((id): id is string => id !== null))];
      const byFrame = await details(db, 'id', ids);
      return refs.map((ref) => {
        const frame = byFrame.get(frameIdOf(ref) ?? '');
        return frame && frame.mediaId === ref.mediaId ? frame : null;
      });
    },
  };
}
