import { invalid, notFound } from '../../platform/errors.js';
import type { TextIndexWriter } from '../../index/text/writer.js';
import type { EventWriter } from '../eventWriter.js';
import type { MediaStore } from '../storage.js';
import type { Db } from './database.js';
import { mediaEvent } from './eventLog.js';
import { toMedia, type MediaRow } from './rows.js';
import { dropTags, syncTags } from './tagIndex.js';

interface Helpers {
  deleteRows(rows: Array<{ id: string; size_bytes: number }>, organizationId: string, userId: string): number;
  mustRow(id: string): MediaRow;
  /** The text index, told of the versions that stop and start being current. */
  text: TextIndexWriter;
  events: EventWriter;
}

/**
 * Derived versions share the original's root_id and parent folder; exactly one
 * active version per root is current (is_current = 1) and only it is listed and
 * tag-indexed.
 */
export function sqliteVersions(
  db: Db,
  helpers: Helpers,
): Pick<MediaStore, 'listVersions' | 'deleteVersion' | 'selectVersion' | 'versionCounts'> {
  const activeVersions = db.prepare(
    `SELECT * FROM media WHERE root_id = ? AND status = 'active' ORDER BY created_at, id`,
  );

  const makeCurrent = (row: MediaRow, userId: string) => {
    const previous = db
      .prepare(`SELECT id FROM media WHERE root_id = ? AND is_current = 1 AND id != ?`)
      .pluck()
      .all(row.root_id, row.id) as string[];
    db.prepare(`UPDATE media SET is_current = 0 WHERE root_id = ? AND id != ?`).run(row.root_id, row.id);
    helpers.text.reindexMedia(previous);
    dropTags(db, helpers.text, previous);
    db.prepare(`UPDATE media SET is_current = 1, updated_at = ?, updated_by = ? WHERE id = ?`).run(
      new Date().toISOString(),
      userId,
      row.id,
    );
    if (row.is_current !== 1) helpers.text.reindexMedia([row.id]);
    syncTags(db, helpers.text, row.id, row.dataset_id, true, JSON.parse(row.metadata));
  };

  const deleteVersion = db.transaction((rootId: string, versionId: string, userId: string) => {
    const row = helpers.mustRow(versionId);
    if (row.root_id !== rootId || row.status !== 'active') throw notFound('version not found for this media item');
    helpers.deleteRows([row], row.organization_id, userId);
    let promotedId: string | null = null;
    if (row.is_current === 1) {
      const remaining = activeVersions.all(rootId) as MediaRow[];
      const newest = remaining[remaining.length - 1];
      if (newest) {
        makeCurrent(newest, userId);
        promotedId = newest.id;
      }
    }
    helpers.events.append(
      mediaEvent('media.deleted', row, {
        status: 'deleted',
        reason: null,
        deletedCount: 1,
        promotedMediaId: promotedId,
      }),
    );
    return { deletedId: versionId, promotedId };
  });

  const selectVersion = db.transaction((versionId: string, userId: string) => {
    const row = helpers.mustRow(versionId);
    if (row.status !== 'active') throw notFound('version not found');
    if (row.type === 'folder') throw invalid('folders have no versions');
    makeCurrent(row, userId);
    return toMedia(helpers.mustRow(versionId));
  });

  return {
    versionCounts: async (rootIds) => {
      const rows = db
        .prepare(
          `SELECT root_id, count(*) AS n FROM media
           WHERE root_id IN (SELECT value FROM json_each(?)) AND status = 'active' GROUP BY root_id`,
        )
        .all(JSON.stringify(rootIds)) as Array<{ root_id: string; n: number }>;
      return new Map(rows.map((row) => [row.root_id, row.n]));
    },
    listVersions: async (rootId) => (activeVersions.all(rootId) as MediaRow[]).map(toMedia),
    deleteVersion: async (rootId, versionId, userId) => deleteVersion(rootId, versionId, userId),
    selectVersion: async (versionId, userId) => selectVersion(versionId, userId),
  };
}
