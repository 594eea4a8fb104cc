import type { PgDb, PgRunner } from '../../platform/pgDb.js';
import type { AlbumStore, ShareLink, ShareLinkPatch, ShareStore } from '../shareStore.js';
import {
  LIVE_JOIN,
  toAlbum,
  toAudit,
  toLink,
  unique,
  type AlbumRow,
  type AuditRow,
  type LinkRow,
} from '../sqlite/shareStore.js';

const LIVE = LIVE_JOIN.replace('m.is_current = 1', 'm.is_current');
const SELECT_ALBUM = `SELECT a.*, (SELECT count(*) FROM album_items x ${LIVE} WHERE x.album_id = a.id) AS item_count
  FROM albums a`;

async function appendItems(q: PgRunner, id: string, rootIds: string[], at: string): Promise<number> {
  const ids = unique(rootIds);
  if (ids.length === 0) return 0;
  // Lock the album row: two appends at once must not hand out the same positions.
  await q.query(`SELECT 1 FROM albums WHERE id = $1 FOR UPDATE`, [id]);
  const start = await q.one<{ p: number }>(
    `SELECT coalesce(max(position), 0)::bigint + 1 AS p FROM album_items WHERE album_id = $1`,
    [id],
  );
  const result = await q.query(
    `INSERT INTO album_items (album_id, media_id, position, added_at)
     SELECT $1, r.media_id, $3::bigint + r.ord - 1, $4 FROM unnest($2::text[]) WITH ORDINALITY AS r(media_id, ord)
     ON CONFLICT DO NOTHING`,
    [id, ids, Number(start!.p), at],
  );
  return result.rowCount ?? 0;
}

const touchAlbum = (q: PgRunner, id: string, at: string) =>
  q.query(`UPDATE albums SET updated_at = $2 WHERE id = $1`, [id, at]);

async function removeAlbumItems(q: PgRunner, id: string, rootIds: string[], at: string): Promise<number> {
  const result = await q.query(`DELETE FROM album_items WHERE album_id = $1 AND media_id = ANY($2::text[])`, [
    id,
    unique(rootIds),
  ]);
  await q.query(
    `UPDATE albums SET cover_media_id = NULL WHERE id = $1 AND cover_media_id IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM album_items WHERE album_id = $1 AND media_id = albums.cover_media_id)`,
    [id],
  );
  await touchAlbum(q, id, at);
  return result.rowCount ?? 0;
}

async function reorderAlbum(q: PgRunner, id: string, rootIds: string[], at: string): Promise<void> {
  await q.query(`SELECT 1 FROM albums WHERE id = $1 FOR UPDATE`, [id]);
  const current = (
    await q.many<{ media_id: string }>(
      `SELECT media_id FROM album_items WHERE album_id = $1 ORDER BY position, media_id`,
      [id],
    )
  ).map((r) => r.media_id);
  const held = new Set(current);
  const first = unique(rootIds).filter((r) => held.has(r));
  const firstSet = new Set(first);
  const order = [...first, ...current.filter((r) => !firstSet.has(r))];
  await q.query(
    `UPDATE album_items x SET position = r.ord FROM unnest($2::text[]) WITH ORDINALITY AS r(media_id, ord)
       WHERE x.album_id = $1 AND x.media_id = r.media_id`,
    [id, order],
  );
  await touchAlbum(q, id, at);
}

/** Albums and their item lists on PostgreSQL (migration 064). */
export function pgAlbumStore(db: PgDb): AlbumStore {
  const get = async (id: string) => {
    const row = await db.one<AlbumRow>(`${SELECT_ALBUM} WHERE a.id = $1`, [id]);
    return row ? toAlbum(row) : null;
  };
  return {
    async create(album, rootIds) {
      await db.tx(async (q) => {
        await q.query(
          `INSERT INTO albums (id, dataset_id, organization_id, name, created_by, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $6)`,
          [album.id, album.collectionId, album.organizationId, album.name, album.createdById, album.createdAt],
        );
        await appendItems(q, album.id, rootIds, album.createdAt);
      });
      return (await get(album.id))!;
    },
    get,
    async list(collectionId) {
      const rows = await db.many<AlbumRow>(`${SELECT_ALBUM} WHERE a.dataset_id = $1 ORDER BY a.updated_at DESC, a.id`, [
        collectionId,
      ]);
      return rows.map(toAlbum);
    },
    async update(id, patch, at) {
      await db.query(
        `UPDATE albums SET updated_at = $2, name = CASE WHEN $3 THEN $4 ELSE name END,
           cover_media_id = CASE WHEN $5 THEN $6 ELSE cover_media_id END WHERE id = $1`,
        [
          id,
          at,
          patch.name !== undefined,
          patch.name ?? null,
          patch.coverMediaId !== undefined,
          patch.coverMediaId ?? null,
        ],
      );
      return get(id);
    },
    async remove(id) {
      const result = await db.query(`DELETE FROM albums WHERE id = $1`, [id]);
      return (result.rowCount ?? 0) > 0;
    },
    addItems: (id, rootIds, at) =>
      db.tx(async (q) => {
        const added = await appendItems(q, id, rootIds, at);
        await touchAlbum(q, id, at);
        return added;
      }),
    removeItems: (id, rootIds, at) => db.tx((q) => removeAlbumItems(q, id, rootIds, at)),
    reorder: (id, rootIds, at) => db.tx((q) => reorderAlbum(q, id, rootIds, at)),
    async page(id, page) {
      const rows = await db.many<{ id: string }>(
        `SELECT m.id FROM album_items x ${LIVE} WHERE x.album_id = $1 ORDER BY x.position, x.media_id LIMIT $2 OFFSET $3`,
        [id, page.limit, page.offset],
      );
      const total = await db.one<{ n: number }>(
        `SELECT count(*)::int AS n FROM album_items x ${LIVE} WHERE x.album_id = $1`,
        [id],
      );
      return { ids: rows.map((r) => r.id), total: total!.n };
    },
    holds: async (id, rootId) =>
      !!(await db.one(`SELECT 1 FROM album_items WHERE album_id = $1 AND media_id = $2`, [id, rootId])),
  };
}

const LINK_COLUMNS: Record<keyof ShareLinkPatch, string> = {
  name: 'name',
  passwordHash: 'password_hash',
  expiresAt: 'expires_at',
  canDownload: 'can_download',
  canUpload: 'can_upload',
  showOrganization: 'show_organization',
};

/** Inserts a link with its selection (inside a transaction). */
async function insertLink(q: PgRunner, l: ShareLink, selection: string[]): Promise<void> {
  await q.query(
    `INSERT INTO share_links (id, organization_id, dataset_id, kind, target_id, token_hash, password_hash,
       expires_at, can_download, can_upload, show_organization, name, view_count, created_by, created_at,
       updated_at, revoked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    [
      l.id,
      l.organizationId,
      l.collectionId,
      l.kind,
      l.targetId,
      l.tokenHash,
      l.passwordHash,
      l.expiresAt,
      l.canDownload,
      l.canUpload,
      l.showOrganization,
      l.name,
      l.viewCount,
      l.createdById,
      l.createdAt,
      l.updatedAt,
      l.revokedAt,
    ],
  );
  const ids = unique(selection);
  if (ids.length)
    await q.query(
      `INSERT INTO share_link_items (link_id, media_id, position)
       SELECT $1, r.media_id, r.ord FROM unnest($2::text[]) WITH ORDINALITY AS r(media_id, ord)`,
      [l.id, ids],
    );
}

/** Share links, their selections and the audit list on PostgreSQL (migration 064). */
export function pgShareStore(db: PgDb): ShareStore {
  const get = async (id: string) => {
    const row = await db.one<LinkRow>(`SELECT * FROM share_links WHERE id = $1`, [id]);
    return row ? toLink(row) : null;
  };
  return {
    create: (l, selection) => db.tx((q) => insertLink(q, l, selection)),
    get,
    async findByTokenHash(tokenHash) {
      const row = await db.one<LinkRow>(`SELECT * FROM share_links WHERE token_hash = $1`, [tokenHash]);
      return row ? toLink(row) : null;
    },
    async list(collectionId) {
      const rows = await db.many<LinkRow>(
        `SELECT * FROM share_links WHERE dataset_id = $1 ORDER BY created_at DESC, id`,
        [collectionId],
      );
      return rows.map(toLink);
    },
    async update(id, patch, at) {
      const sets = ['updated_at = $2'];
      const params: unknown[] = [id, at];
      for (const [key, column] of Object.entries(LINK_COLUMNS) as Array<[keyof ShareLinkPatch, string]>) {
        if (patch[key] === undefined) continue;
        params.push(patch[key]);
        sets.push(`${column} = $${params.length}`);
      }
      await db.query(`UPDATE share_links SET ${sets.join(', ')} WHERE id = $1`, params);
      return get(id);
    },
    async revoke(id, at) {
      const result = await db.query(
        `UPDATE share_links SET revoked_at = $2, updated_at = $2 WHERE id = $1 AND revoked_at IS NULL`,
        [id, at],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async countView(id) {
      await db.query(`UPDATE share_links SET view_count = view_count + 1 WHERE id = $1`, [id]);
    },
    async selectionPage(id, page) {
      const rows = await db.many<{ id: string }>(
        `SELECT m.id FROM share_link_items x ${LIVE} WHERE x.link_id = $1 ORDER BY x.position LIMIT $2 OFFSET $3`,
        [id, page.limit, page.offset],
      );
      const total = await db.one<{ n: number }>(
        `SELECT count(*)::int AS n FROM share_link_items x ${LIVE} WHERE x.link_id = $1`,
        [id],
      );
      return { ids: rows.map((r) => r.id), total: total!.n };
    },
    selectionHolds: async (id, rootId) =>
      !!(await db.one(`SELECT 1 FROM share_link_items WHERE link_id = $1 AND media_id = $2`, [id, rootId])),
    async audit(e) {
      await db.query(
        `INSERT INTO share_audit (id, organization_id, link_id, action, actor_user_id, client_address, detail, at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [e.id, e.organizationId, e.linkId, e.action, e.actorUserId, e.clientAddress, JSON.stringify(e.detail), e.at],
      );
    },
    async auditList(organizationId, page) {
      const rows = await db.many<AuditRow>(
        `SELECT * FROM share_audit WHERE organization_id = $1 ORDER BY at DESC, id DESC LIMIT $2 OFFSET $3`,
        [organizationId, page.limit, page.offset],
      );
      return rows.map(toAudit);
    },
  };
}
