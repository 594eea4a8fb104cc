/**
 * Frame renditions (columns thumbnail_key, preview_key of frames, migration 013): recorded one frame at a
 * time by the rendition stage, and the items still lacking some for the backfill.
 */
import type { EventWriter } from '../eventWriter.js';
import type { AnalysisStore } from '../storage.js';
import type { FrameRenditions } from '../types.js';
import type { Db } from './database.js';
import { mediaEvent } from './eventLog.js';
import type { MediaRow } from './rows.js';

export function frameRenditions(
  db: Db,
  events: EventWriter,
): Pick<AnalysisStore, 'setFrameRenditions' | 'itemsLackingRenditions'> {
  // Only while the frame still shows the file the renditions were made from (see syncFrames).
  const set = db.prepare(
    `UPDATE frames SET thumbnail_key = ?, preview_key = ? WHERE id = ? AND blob_key = ? AND status = 'active'
     RETURNING media_id`,
  );
  const firstFrame = db
    .prepare(`SELECT id FROM frames WHERE media_id = ? AND status = 'active' ORDER BY seconds, id LIMIT 1`)
    .pluck();
  const mediaRow = db.prepare(`SELECT * FROM media WHERE id = ? AND status = 'active'`);
  const setFrameRenditions = db.transaction((frameId: string, fromBlobKey: string, r: FrameRenditions) => {
    const updated = set.get(r.thumbnailKey, r.previewKey, frameId, fromBlobKey) as { media_id: string } | undefined;
    if (!updated) return false;
    // The item's own thumbnail is its first frame's: that one is news for a client showing the item.
    const item = mediaRow.get(updated.media_id) as MediaRow | undefined;
    if (item && firstFrame.get(updated.media_id) === frameId) events.append(mediaEvent('media.thumbnail', item));
    return true;
  });
  // Through frames_without_renditions (a partial index: empty once every frame has its renditions).
  const lacking = db.prepare(
    `SELECT DISTINCT f.media_id FROM frames f JOIN media m ON m.id = f.media_id
     WHERE f.thumbnail_key IS NULL AND f.status = 'active' AND f.media_id > ?
       AND m.status = 'active' AND m.processing_status IN ('ready', 'failed')
     ORDER BY f.media_id LIMIT ?`,
  );
  return {
    setFrameRenditions: async (frameId, fromBlobKey, renditions) =>
      setFrameRenditions(frameId, fromBlobKey, renditions),
    itemsLackingRenditions: async (limit, afterId = '') => lacking.pluck().all(afterId, limit) as string[],
  };
}
