/**
 * The fields of a media row that an item's event names (mediaEvent in src/storage/sqlite/eventLog.ts), read
 * inside the transaction that appends the event. Paths come back as text, as SQLite keeps them.
 */
import type { PgRunner } from '../../platform/pgDb.js';
import type { MediaRow } from '../sqlite/rows.js';

const COLUMNS = `id, dataset_id, organization_id, path::text AS path, parent_path::text AS parent_path, type, name,
  root_id, processing_status, processing_error`;

/** The active item's row as mediaEvent reads it, or null; `ready` narrows to items whose processing is done. */
export async function activeItemRow(tx: PgRunner, mediaId: string, ready = false): Promise<MediaRow | null> {
  return tx.one<MediaRow>(
    `SELECT ${COLUMNS} FROM media WHERE id = $1 AND status = 'active'${ready ? ` AND processing_status = 'ready'` : ''}`,
    [mediaId],
  );
}
