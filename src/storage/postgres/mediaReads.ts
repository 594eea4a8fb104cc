import type { PgDb } from '../../platform/pgDb.js';
import { toMedia } from '../sqlite/rows.js';
import type { MediaStore } from '../storage.js';
import type { MediaSummary } from '../types.js';
import { referencedBlobKeys } from './blobReferences.js';
import { fetchRow, MEDIA_COLUMNS, type MediaRowWithText } from './mediaRows.js';

interface SummaryRow {
  id: string;
  dataset_id: string;
  type: MediaSummary['type'];
  name: string;
  blob_key: string | null;
  width: number | null;
  height: number | null;
  duration: number | null;
  status: MediaSummary['status'];
  is_current: boolean;
  created_at: string;
  favorite: boolean;
  archived: boolean;
}
const toSummary = (row: SummaryRow): MediaSummary => ({
  id: row.id,
  collectionId: row.dataset_id,
  type: row.type,
  name: row.name,
  blobKey: row.blob_key,
  width: row.width,
  height: row.height,
  duration: row.duration,
  status: row.status,
  isCurrent: row.is_current,
  createdAt: row.created_at,
  favorite: row.favorite,
  archived: row.archived,
});

/** The reads behind item pages, search, ingest recovery and blob collection: each one statement. */
export function mediaReads(
  db: PgDb,
): Pick<
  MediaStore,
  'get' | 'getMany' | 'summaries' | 'unfinishedIds' | 'referencedBlobKeys' | 'pendingItemJobs' | 'findByBlobKey'
> {
  return {
    get: async (id) => {
      const row = await fetchRow(db, id);
      return row ? toMedia(row) : null;
    },
    getMany: async (ids) =>
      ids.length === 0
        ? []
        : (await db.many<MediaRowWithText>(`SELECT ${MEDIA_COLUMNS} FROM media WHERE id = ANY($1::text[])`, [ids])).map(
            toMedia,
          ),
    summaries: async (ids) =>
      ids.length === 0
        ? []
        : (
            await db.many<SummaryRow>(
              `SELECT id, dataset_id, type, name, blob_key, width, height, duration, status, is_current, created_at,
                 favorite, archived FROM media WHERE id = ANY($1::text[])`,
              [ids],
            )
          ).map(toSummary),
    unfinishedIds: async (limit, afterId = '') =>
      (
        await db.many<{ id: string }>(
          // Through media_unfinished (001): ids of active pending or processing rows.
          `SELECT id FROM media WHERE status = 'active' AND processing_status IN ('pending', 'processing')
             AND type <> 'folder' AND id > $1
           ORDER BY id LIMIT $2`,
          [afterId, limit],
        )
      ).map((r) => r.id),
    referencedBlobKeys: (keys) => referencedBlobKeys(db, keys),
    pendingItemJobs: async (type, organizationId) =>
      (await db.one<{ n: number }>(
        // Through jobs_dedupe (type, key of the unfinished jobs), then the item by its id.
        `SELECT count(*) AS n FROM jobs j JOIN media m ON m.id = j.dedupe_key
         WHERE j.type = $1 AND j.status IN ('queued', 'running') AND m.organization_id = $2`,
        [type, organizationId],
      ))!.n,
    findByBlobKey: async (organizationId, blobKey) =>
      (
        await db.many<MediaRowWithText>(
          `SELECT ${MEDIA_COLUMNS} FROM media
           WHERE blob_key = $1 AND organization_id = $2 AND status = 'active' AND type <> 'folder'
           ORDER BY is_current DESC, created_at DESC, id DESC`,
          [blobKey, organizationId],
        )
      ).map(toMedia),
  };
}
