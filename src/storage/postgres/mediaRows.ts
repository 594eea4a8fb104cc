import { notFound } from '../../platform/errors.js';
import type { PgRunner } from '../../platform/pgDb.js';
import type { CaptionRow, FrameRow, MediaRow, ObjectRow } from '../sqlite/rows.js';

/**
 * The media store's rows read in the shapes SQLite gives them (paths and JSON documents as text, is_current
 * as 0/1), so the engine-neutral mappers of sqlite/rows.ts (toMedia, toFrame, …) and mediaEvent serve both.
 */

/** The live rows: active and the current version of their root. */
export const LIVE = `status = 'active' AND is_current`;

/** Every column of MediaRow, from media (alias-free: prefix with `m.` via mediaColumns('m')). */
export const mediaColumns = (alias = ''): string => {
  const a = alias ? `${alias}.` : '';
  return `${a}id, ${a}dataset_id, ${a}organization_id, ${a}path::text AS path, ${a}parent_path::text AS parent_path,
    ${a}type, ${a}name, ${a}blob_key, ${a}mime_type, ${a}width, ${a}height, ${a}duration, ${a}size_bytes,
    ${a}exif::text AS exif, ${a}metadata::text AS metadata, ${a}status, ${a}processing_status, ${a}processing_error,
    ${a}root_id, ${a}is_current::int AS is_current, ${a}created_at, ${a}updated_at, ${a}created_by, ${a}updated_by,
    ${a}taken_at, ${a}description, ${a}favorite, ${a}archived`;
};
export const MEDIA_COLUMNS = mediaColumns();

/** A media row with its searchable description (the writes compare it). */
export type MediaRowWithText = MediaRow & { description: string | null };

export const FRAME_COLUMNS = `id, media_id, timestamp, blob_key, width, height, thumbnail_key, preview_key, status,
  metadata::text AS metadata, created_at, updated_at, created_by`;
export const CAPTION_COLUMNS = `id, frame_id, text, model, status, metadata::text AS metadata, created_at, updated_at,
  created_by`;
export const OBJECT_COLUMNS = `id, frame_id, media_id, type, label, blob_key, polygon::text AS polygon, confidence, model,
  status, created_at`;
export type { CaptionRow, FrameRow, MediaRow, ObjectRow };

export const now = () => new Date().toISOString();

/** A metadata field kept in its own column (description, prompt) when it is a string. */
export const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The row (any status), or null; `lock` takes it FOR UPDATE (inside a transaction). */
export async function fetchRow(q: PgRunner, id: string, lock = false): Promise<MediaRowWithText | null> {
  return q.one<MediaRowWithText>(`SELECT ${MEDIA_COLUMNS} FROM media WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
}

/** The row, or a not-found error. */
export async function mustRow(q: PgRunner, id: string, lock = false): Promise<MediaRowWithText> {
  const row = await fetchRow(q, id, lock);
  if (!row) throw notFound('media not found');
  return row;
}

/** The row when it is active, else a not-found error. */
export async function activeRow(q: PgRunner, id: string, lock = false): Promise<MediaRowWithText> {
  const row = await mustRow(q, id, lock);
  if (row.status !== 'active') throw notFound('media not found');
  return row;
}

/**
 * Adds bytes (fewer when negative, never below 0) to an organization's storage total. The row stays locked
 * to the commit, so an organization's concurrent inserts queue here for that long (short transactions).
 */
export async function addStorage(q: PgRunner, bytes: number, organizationId: string): Promise<void> {
  if (bytes === 0) return;
  await q.query(`UPDATE organizations SET storage_bytes = greatest(0, storage_bytes + $1) WHERE id = $2`, [
    bytes,
    organizationId,
  ]);
}

/**
 * Serialises the version changes of one root (a new version, selecting, deleting one): the root row, which
 * every version's root_id names and which is never removed, is the lock. Without it two transactions could
 * each leave their own version current.
 */
export async function lockRoot(q: PgRunner, rootId: string): Promise<void> {
  await q.query(`SELECT 1 FROM media WHERE id = $1 FOR UPDATE`, [rootId]);
}
