import type {
  Album,
  AlbumStore,
  NewAlbum,
  ShareAuditEntry,
  ShareLink,
  ShareLinkPatch,
  ShareStore,
} from '../shareStore.js';
import type { Db } from './database.js';

export interface AlbumRow {
  id: string;
  dataset_id: string;
  organization_id: string;
  name: string;
  cover_media_id: string | null;
  item_count: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface LinkRow {
  id: string;
  organization_id: string;
  dataset_id: string;
  kind: ShareLink['kind'];
  target_id: string | null;
  token_hash: string;
  password_hash: string | null;
  expires_at: string | null;
  /** 0/1 on SQLite, a boolean on PostgreSQL. */
  can_download: number | boolean;
  can_upload: number | boolean;
  show_organization: number | boolean;
  name: string;
  view_count: number;
  created_by: string;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
}

export interface AuditRow {
  id: string;
  organization_id: string;
  link_id: string | null;
  action: string;
  actor_user_id: string | null;
  client_address: string | null;
  /** JSON text on SQLite, an object on PostgreSQL. */
  detail: string | Record<string, unknown>;
  at: string;
}

export const toAlbum = (r: AlbumRow): Album => ({
  id: r.id,
  collectionId: r.dataset_id,
  organizationId: r.organization_id,
  name: r.name,
  coverMediaId: r.cover_media_id,
  itemCount: Number(r.item_count ?? 0),
  createdById: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toLink = (r: LinkRow): ShareLink => ({
  id: r.id,
  organizationId: r.organization_id,
  collectionId: r.dataset_id,
  kind: r.kind,
  targetId: r.target_id,
  tokenHash: r.token_hash,
  passwordHash: r.password_hash,
  expiresAt: r.expires_at,
  canDownload: Boolean(r.can_download),
  canUpload: Boolean(r.can_upload),
  showOrganization: Boolean(r.show_organization),
  name: r.name,
  viewCount: Number(r.view_count),
  createdById: r.created_by,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  revokedAt: r.revoked_at,
});

export const toAudit = (r: AuditRow): ShareAuditEntry => ({
  id: r.id,
  organizationId: r.organization_id,
  linkId: r.link_id,
  action: r.action,
  actorUserId: r.actor_user_id,
  clientAddress: r.client_address,
  detail: typeof r.detail === 'string' ? (JSON.parse(r.detail) as Record<string, unknown>) : r.detail,
  at: r.at,
});

/** The live items (current versions) of a list of root ids: the join both engines use, `?` for the list's id. */
export const LIVE_JOIN = `JOIN media m ON m.root_id = x.media_id AND m.is_current = 1 AND m.status = 'active'`;

/** Unique ids in first-seen order. */
export const unique = (ids: string[]): string[] => [...new Set(ids)];

/** The album store's write transactions. */
function albumWrites(db: Db) {
  const nextPosition = db.prepare(`SELECT coalesce(max(position), 0) + 1 AS p FROM album_items WHERE album_id = ?`);
  const insertItem = db.prepare(
    `INSERT INTO album_items (album_id, media_id, position, added_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const touch = db.prepare(`UPDATE albums SET updated_at = ? WHERE id = ?`);
  const add = db.transaction((id: string, rootIds: string[], at: string) => {
    let position = (nextPosition.get(id) as { p: number }).p;
    let added = 0;
    for (const rootId of unique(rootIds)) added += insertItem.run(id, rootId, position++, at).changes;
    touch.run(at, id);
    return added;
  });
  const create = db.transaction((album: NewAlbum, rootIds: string[]) => {
    db.prepare(
      `INSERT INTO albums (id, dataset_id, organization_id, name, created_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      album.id,
      album.collectionId,
      album.organizationId,
      album.name,
      album.createdById,
      album.createdAt,
      album.createdAt,
    );
    add(album.id, rootIds, album.createdAt);
  });
  const removeItems = db.transaction((id: string, rootIds: string[], at: string) => {
    const del = db.prepare(`DELETE FROM album_items WHERE album_id = ? AND media_id = ?`);
    let removed = 0;
    for (const rootId of unique(rootIds)) removed += del.run(id, rootId).changes;
    db.prepare(
      `UPDATE albums SET cover_media_id = NULL WHERE id = ? AND cover_media_id NOT IN
      (SELECT media_id FROM album_items WHERE album_id = ?)`,
    ).run(id, id);
    touch.run(at, id);
    return removed;
  });
  const reorder = db.transaction((id: string, rootIds: string[], at: string) => {
    const current = db
      .prepare(`SELECT media_id FROM album_items WHERE album_id = ? ORDER BY position, media_id`)
      .pluck()
      .all(id) as string[];
    const held = new Set(current);
    const first = unique(rootIds).filter((r) => held.has(r));
    const firstSet = new Set(first);
    const order = [...first, ...current.filter((r) => !firstSet.has(r))];
    const set = db.prepare(`UPDATE album_items SET position = ? WHERE album_id = ? AND media_id = ?`);
    order.forEach((rootId, i) => set.run(i + 1, id, rootId));
    touch.run(at, id);
  });
  return { add, create, removeItems, reorder };
}

/** Albums and their item lists (migration 031). */
export function sqliteAlbumStore(db: Db): AlbumStore {
  const select = `SELECT a.*, (SELECT count(*) FROM album_items x ${LIVE_JOIN} WHERE x.album_id = a.id) AS item_count
    FROM albums a`;
  const getOne = db.prepare(`${select} WHERE a.id = ?`);
  const get = (id: string) => {
    const row = getOne.get(id) as AlbumRow | undefined;
    return row ? toAlbum(row) : null;
  };
  const { add, create, removeItems, reorder } = albumWrites(db);
  const pageRows = db.prepare(
    `SELECT m.id FROM album_items x ${LIVE_JOIN} WHERE x.album_id = ? ORDER BY x.position, x.media_id LIMIT ? OFFSET ?`,
  );
  const count = db.prepare(`SELECT count(*) FROM album_items x ${LIVE_JOIN} WHERE x.album_id = ?`);
  return {
    async create(album, rootIds) {
      create(album, rootIds);
      return get(album.id)!;
    },
    get: async (id) => get(id),
    async list(collectionId) {
      const rows = db.prepare(`${select} WHERE a.dataset_id = ? ORDER BY a.updated_at DESC, a.id`).all(collectionId);
      return (rows as AlbumRow[]).map(toAlbum);
    },
    async update(id, patch, at) {
      const sets: string[] = ['updated_at = @at'];
      if (patch.name !== undefined) sets.push('name = @name');
      if (patch.coverMediaId !== undefined) sets.push('cover_media_id = @cover');
      db.prepare(`UPDATE albums SET ${sets.join(', ')} WHERE id = @id`).run({
        id,
        at,
        name: patch.name ?? null,
        cover: patch.coverMediaId ?? null,
      });
      return get(id);
    },
    remove: async (id) => db.prepare(`DELETE FROM albums WHERE id = ?`).run(id).changes > 0,
    addItems: async (id, rootIds, at) => add(id, rootIds, at),
    removeItems: async (id, rootIds, at) => removeItems(id, rootIds, at),
    reorder: async (id, rootIds, at) => reorder(id, rootIds, at),
    async page(id, page) {
      const ids = pageRows.pluck().all(id, page.limit, page.offset) as string[];
      return { ids, total: count.pluck().get(id) as number };
    },
    holds: async (id, rootId) =>
      !!db.prepare(`SELECT 1 FROM album_items WHERE album_id = ? AND media_id = ?`).get(id, rootId),
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

/** Inserts a link with its selection, in one transaction. */
function linkInsert(db: Db) {
  const bool = (b: boolean) => (b ? 1 : 0);
  return db.transaction((l: ShareLink, selection: string[]) => {
    db.prepare(
      `INSERT INTO share_links (id, organization_id, dataset_id, kind, target_id, token_hash, password_hash, expires_at,
         can_download, can_upload, show_organization, name, view_count, created_by, created_at, updated_at, revoked_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      l.id,
      l.organizationId,
      l.collectionId,
      l.kind,
      l.targetId,
      l.tokenHash,
      l.passwordHash,
      l.expiresAt,
      bool(l.canDownload),
      bool(l.canUpload),
      bool(l.showOrganization),
      l.name,
      l.viewCount,
      l.createdById,
      l.createdAt,
      l.updatedAt,
      l.revokedAt,
    );
    const item = db.prepare(`INSERT INTO share_link_items (link_id, media_id, position) VALUES (?, ?, ?)`);
    unique(selection).forEach((rootId, i) => item.run(l.id, rootId, i + 1));
  });
}

const bool = (b: boolean) => (b ? 1 : 0);

/** Writes the named settings of a link. */
function updateLink(db: Db, id: string, patch: ShareLinkPatch, at: string): void {
  const sets = ['updated_at = ?'];
  const params: unknown[] = [at];
  for (const [key, column] of Object.entries(LINK_COLUMNS) as Array<[keyof ShareLinkPatch, string]>) {
    const value = patch[key];
    if (value === undefined) continue;
    sets.push(`${column} = ?`);
    params.push(typeof value === 'boolean' ? bool(value) : value);
  }
  db.prepare(`UPDATE share_links SET ${sets.join(', ')} WHERE id = ?`).run(...params, id);
}

/** Share links, their selections and the audit list (migration 031). */
export function sqliteShareStore(db: Db): ShareStore {
  const getOne = db.prepare(`SELECT * FROM share_links WHERE id = ?`);
  const get = (id: string) => {
    const row = getOne.get(id) as LinkRow | undefined;
    return row ? toLink(row) : null;
  };
  const create = linkInsert(db);
  const selectionRows = db.prepare(
    `SELECT m.id FROM share_link_items x ${LIVE_JOIN} WHERE x.link_id = ? ORDER BY x.position LIMIT ? OFFSET ?`,
  );
  const selectionCount = db.prepare(`SELECT count(*) FROM share_link_items x ${LIVE_JOIN} WHERE x.link_id = ?`);
  return {
    create: async (link, selection) => create(link, selection),
    get: async (id) => get(id),
    async findByTokenHash(tokenHash) {
      const row = db.prepare(`SELECT * FROM share_links WHERE token_hash = ?`).get(tokenHash) as LinkRow | undefined;
      return row ? toLink(row) : null;
    },
    async list(collectionId) {
      const rows = db
        .prepare(`SELECT * FROM share_links WHERE dataset_id = ? ORDER BY created_at DESC, id`)
        .all(collectionId) as LinkRow[];
      return rows.map(toLink);
    },
    update: async (id, patch, at) => {
      updateLink(db, id, patch, at);
      return get(id);
    },
    revoke: async (id, at) =>
      db
        .prepare(`UPDATE share_links SET revoked_at = ?, updated_at = ? WHERE id = ? AND revoked_at IS NULL`)
        .run(at, at, id).changes > 0,
    async countView(id) {
      db.prepare(`UPDATE share_links SET view_count = view_count + 1 WHERE id = ?`).run(id);
    },
    async selectionPage(id, page) {
      const ids = selectionRows.pluck().all(id, page.limit, page.offset) as string[];
      return { ids, total: selectionCount.pluck().get(id) as number };
    },
    selectionHolds: async (id, rootId) =>
      !!db.prepare(`SELECT 1 FROM share_link_items WHERE link_id = ? AND media_id = ?`).get(id, rootId),
    async audit(e) {
      db.prepare(
        `INSERT INTO share_audit (id, organization_id, link_id, action, actor_user_id, client_address, detail, at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(e.id, e.organizationId, e.linkId, e.action, e.actorUserId, e.clientAddress, JSON.stringify(e.detail), e.at);
    },
    async auditList(organizationId, page) {
      const rows = db
        .prepare(`SELECT * FROM share_audit WHERE organization_id = ? ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`)
        .all(organizationId, page.limit, page.offset) as AuditRow[];
      return rows.map(toAudit);
    },
  };
}
