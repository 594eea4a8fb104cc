/**
 * Frame renditions on PostgreSQL (columns thumbnail_key, preview_key of frames): recorded one frame at a
 * time by the rendition stage, and the items still lacking some for the backfill.
 * SQLite: src/storage/sqlite/renditionStore.ts.
 */
import type { PgDb } from '../../platform/pgDb.js';
import { mediaEvent } from '../sqlite/eventLog.js';
import type { AnalysisStore } from '../storage.js';
import { appendEvent } from './eventAppend.js';
import type { PgEventHub } from './eventHub.js';
import { activeItemRow } from './itemEventRow.js';

export function pgRenditions(
  db: PgDb,
  hub: PgEventHub,
): Pick<AnalysisStore, 'setFrameRenditions' | 'itemsLackingRenditions'> {
  return {
    async setFrameRenditions(frameId, fromBlobKey, r) {
      const outcome = await db.tx(async (tx) => {
        // Only while the frame still shows the file the renditions were made from (see syncFrames).
        const updated = await tx.one<{ media_id: string }>(
          `UPDATE frames SET thumbnail_key = $1, preview_key = $2 WHERE id = $3 AND blob_key = $4 AND status = 'active'
           RETURNING media_id`,
          [r.thumbnailKey, r.previewKey, frameId, fromBlobKey],
        );
        if (!updated) return { set: false, appended: false };
        // The item's own thumbnail is its first frame's: that one is news for a client showing the item.
        const first = await tx.one<{ id: string }>(
          `SELECT id FROM frames WHERE media_id = $1 AND status = 'active' ORDER BY seconds, id LIMIT 1`,
          [updated.media_id],
        );
        const item = first?.id === frameId ? await activeItemRow(tx, updated.media_id) : null;
        if (item) await appendEvent(tx, mediaEvent('media.thumbnail', item));
        return { set: true, appended: item !== null };
      });
      if (outcome.appended) hub.appended();
      return outcome.set;
    },
    // Through frames_without_renditions (a partial index: empty once every frame has its renditions).
    async itemsLackingRenditions(limit, afterId = '') {
      const rows = await db.many<{ media_id: string }>(
        `SELECT DISTINCT f.media_id FROM frames f JOIN media m ON m.id = f.media_id
         WHERE f.thumbnail_key IS NULL AND f.status = 'active' AND f.media_id > $1
           AND m.status = 'active' AND m.processing_status IN ('ready', 'failed')
         ORDER BY f.media_id LIMIT $2`,
        [afterId, limit],
      );
      return rows.map((r) => r.media_id);
    },
  };
}
