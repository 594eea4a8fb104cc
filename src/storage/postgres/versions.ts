import { invalid, notFound } from '../../platform/errors.js';
import type { PgDb, PgRunner } from '../../platform/pgDb.js';
import { mediaEvent } from '../sqlite/eventLog.js';
import { toMedia } from '../sqlite/rows.js';
import type { MediaStore } from '../storage.js';
import type { Metadata } from '../types.js';
import { appendEvent } from './eventAppend.js';
import type { PgEventHub } from './eventHub.js';
import { deleteRows } from './mediaTree.js';
import { lockRoot, MEDIA_COLUMNS, mustRow, now, type MediaRowWithText } from './mediaRows.js';
import { dropTags, syncTags } from './tags.js';

const activeVersions = (q: PgRunner, rootId: string) =>
  q.many<MediaRowWithText>(
    `SELECT ${MEDIA_COLUMNS} FROM media WHERE root_id = $1 AND status = 'active' ORDER BY created_at, id`,
    [rootId],
  );

/** Makes `row` the current version of its root (the root is locked by the caller). */
async function makeCurrent(tx: PgRunner, row: MediaRowWithText, userId: string): Promise<void> {
  const previous = await tx.many<{ id: string }>(
    `UPDATE media SET is_current = false WHERE root_id = $1 AND id <> $2 AND is_current RETURNING id`,
    [row.root_id, row.id],
  );
  await dropTags(
    tx,
    previous.map((r) => r.id),
  );
  await tx.query(`UPDATE media SET is_current = true, updated_at = $1, updated_by = $2 WHERE id = $3`, [
    now(),
    userId,
    row.id,
  ]);
  await syncTags(tx, row.id, row.dataset_id, true, JSON.parse(row.metadata) as Metadata);
}

/**
 * Derived versions share the original's root_id and parent folder; exactly one active version per root is
 * current (is_current) and only it is listed and tag-indexed. Changes of one root are serialised on the
 * root's row (lockRoot).
 */
export function pgVersions(
  db: PgDb,
  hub: PgEventHub,
): Pick<MediaStore, 'listVersions' | 'deleteVersion' | 'selectVersion' | 'versionCounts'> {
  return {
    versionCounts: async (rootIds) => {
      const rows = await db.many<{ root_id: string; n: number }>(
        `SELECT root_id, count(*) AS n FROM media WHERE root_id = ANY($1::text[]) AND status = 'active' GROUP BY root_id`,
        [rootIds],
      );
      return new Map(rows.map((row) => [row.root_id, row.n]));
    },

    listVersions: async (rootId) => (await activeVersions(db, rootId)).map(toMedia),

    async deleteVersion(rootId, versionId, userId) {
      const result = await db.tx(async (tx) => {
        await lockRoot(tx, rootId);
        const row = await mustRow(tx, versionId);
        if (row.root_id !== rootId || row.status !== 'active') throw notFound('version not found for this media item');
        await deleteRows(tx, `id = $1`, [row.id], row.organization_id, userId);
        let promotedId: string | null = null;
        if (row.is_current === 1) {
          const remaining = await activeVersions(tx, rootId);
          const newest = remaining[remaining.length - 1];
          if (newest) {
            await makeCurrent(tx, newest, userId);
            promotedId = newest.id;
          }
        }
        await appendEvent(
          tx,
          mediaEvent('media.deleted', row, {
            status: 'deleted',
            reason: null,
            deletedCount: 1,
            promotedMediaId: promotedId,
          }),
        );
        return { deletedId: versionId, promotedId };
      });
      hub.appended();
      return result;
    },

    selectVersion: (versionId, userId) =>
      db.tx(async (tx) => {
        const first = await mustRow(tx, versionId);
        await lockRoot(tx, first.root_id);
        const row = await mustRow(tx, versionId);
        if (row.status !== 'active') throw notFound('version not found');
        if (row.type === 'folder') throw invalid('folders have no versions');
        await makeCurrent(tx, row, userId);
        return toMedia(await mustRow(tx, versionId));
      }),
  };
}
