/**
 * Rows written with plain SQL into a PostgreSQL store's tables, for the analysis and cluster tests while
 * the PostgreSQL media, accounts and collections stores are written in parallel: an organization with a
 * user and a collection, image and video items with frames, and a soft delete as the media store does it
 * (the item, its frames, captions and objects). The contract suite (test/storage/suite.ts) uses the
 * stores themselves.
 */
import { newMediaId, newUuid, pathLabel } from '../../src/platform/ids.js';
import type { PgRunner } from '../../src/platform/pgDb.js';

export interface PgOwner {
  userId: string;
  orgId: string;
  collId: string;
}

const now = () => new Date().toISOString();

/** An organization, its owner and one collection. */
export async function pgOwner(db: PgRunner): Promise<PgOwner> {
  const userId = newUuid();
  const orgId = newUuid();
  await db.query(`INSERT INTO users (id, email, name, created_at) VALUES ($1, $2, 'U', $3)`, [
    userId,
    `u-${userId}@example.com`,
    now(),
  ]);
  await db.query(`INSERT INTO organizations (id, name, slug, created_at) VALUES ($1, 'Org', $2, $3)`, [
    orgId,
    `org-${orgId}`,
    now(),
  ]);
  await db.query(`INSERT INTO memberships (organization_id, user_id, role, created_at) VALUES ($1, $2, 'owner', $3)`, [
    orgId,
    userId,
    now(),
  ]);
  return { userId, orgId, collId: await pgCollection(db, orgId, userId) };
}

export async function pgCollection(db: PgRunner, orgId: string, userId: string): Promise<string> {
  const id = newUuid();
  await db.query(
    `INSERT INTO collections (id, organization_id, name, created_at, updated_at, created_by)
     VALUES ($1, $2, 'People', $3, $3, $4)`,
    [id, orgId, now(), userId],
  );
  return id;
}

/** An item with frames at these timestamps (none for a video whose frames come from syncFrames); ids. */
export async function pgItem(
  db: PgRunner,
  owner: PgOwner,
  o: { collId?: string; type?: 'image' | 'video'; frames?: string[]; status?: string } = {},
): Promise<{ mediaId: string; frameIds: string[] }> {
  const mediaId = newMediaId();
  const collId = o.collId ?? owner.collId;
  const root = pathLabel(collId);
  await db.query(
    `INSERT INTO media (id, dataset_id, organization_id, path, parent_path, type, name, blob_key, size_bytes,
       processing_status, root_id, created_at, updated_at, created_by)
     VALUES ($1, $2, $3, $4::ltree, $5::ltree, $6, $7, $8, 1000, $9, $1, $10, $10, $11)`,
    [
      mediaId,
      collId,
      owner.orgId,
      `${root}.${pathLabel(mediaId)}`,
      root,
      o.type ?? 'image',
      `${mediaId.slice(0, 6)}.jpg`,
      `blob-${mediaId}`,
      o.status ?? 'ready',
      now(),
      owner.userId,
    ],
  );
  const frameIds: string[] = [];
  for (const [i, t] of (o.frames ?? ['0']).entries()) {
    const id = newMediaId();
    frameIds.push(id);
    await db.query(
      `INSERT INTO frames (id, media_id, timestamp, seconds, blob_key, width, height, created_at, updated_at, created_by)
       VALUES ($1, $2, $3, $4, $5, 640, 480, $6, $6, $7)`,
      [id, mediaId, t, Number(t) || 0, `frame-${mediaId}-${i}`, now(), owner.userId],
    );
  }
  return { mediaId, frameIds };
}

/** Soft-deletes an item as the media store does: the item, then its frames, captions and objects. */
export async function pgSoftDelete(db: PgRunner, mediaId: string): Promise<void> {
  const at = now();
  await db.query(`UPDATE media SET status = 'deleted', deleted_at = $2, updated_at = $2 WHERE id = $1`, [mediaId, at]);
  for (const table of ['frames', 'captions', 'detected_objects']) {
    await db.query(`UPDATE ${table} SET status = 'deleted', updated_at = $2 WHERE media_id = $1`, [mediaId, at]);
  }
}
