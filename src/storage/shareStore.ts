/**
 * The stores behind albums and share links (features/share). Part of Storage (storage.ts) as
 * `storage.albums` and `storage.shares`.
 *
 * An album holds items by their root id (`media.root_id`: an original's own id), so an edit that makes a new
 * current version keeps the item in its albums; listings show the live (active, current) version.
 */

/** A named, ordered set of items of one collection. */
export interface Album {
  id: string;
  collectionId: string;
  organizationId: string;
  name: string;
  /** The root id of the item shown as the album's cover; null: the first item. */
  coverMediaId: string | null;
  /** Live items in the album. */
  itemCount: number;
  createdById: string;
  createdAt: string;
  updatedAt: string;
}

export type NewAlbum = Omit<Album, 'itemCount' | 'coverMediaId' | 'updatedAt'>;

/** A page of live item ids (media ids of the current versions), in album or selection order, with the total. */
export interface IdPage {
  ids: string[];
  total: number;
}

/** Albums (`storage.albums`): named, ordered sets of items. */
export interface AlbumStore {
  /** Creates the album with these items (root ids, in this order; duplicates kept once). */
  create(album: NewAlbum, rootIds: string[]): Promise<Album>;
  get(id: string): Promise<Album | null>;
  /** The collection's albums, most recently changed first. */
  list(collectionId: string): Promise<Album[]>;
  /** Renames and/or sets the cover (null: none); null when there is no such album. */
  update(id: string, patch: { name?: string; coverMediaId?: string | null }, at: string): Promise<Album | null>;
  /** Deletes the album and its item list (the items stay); false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Appends the root ids not yet in the album, in order; returns how many were added. */
  addItems(id: string, rootIds: string[], at: string): Promise<number>;
  /** Takes these root ids out of the album; returns how many were in it. */
  removeItems(id: string, rootIds: string[], at: string): Promise<number>;
  /**
   * Puts these root ids first, in this order; the album's other items follow in their earlier order.
   * Ids not in the album are ignored.
   */
  reorder(id: string, rootIds: string[], at: string): Promise<void>;
  /** Live items of the album in its order, one page. */
  page(id: string, page: { limit: number; offset: number }): Promise<IdPage>;
  /** Whether the album holds the item with this root id (in any state). */
  holds(id: string, rootId: string): Promise<boolean>;
}

export type ShareKind = 'album' | 'folder' | 'selection';

/** A share link: a token (stored as its sha256) that opens one album, folder or selection to visitors. */
export interface ShareLink {
  id: string;
  organizationId: string;
  collectionId: string;
  kind: ShareKind;
  /** The album id, or the folder's media id (null: the collection's root); null for a selection. */
  targetId: string | null;
  tokenHash: string;
  /** scrypt PHC string (features/accounts/passwords.ts); null: no password. */
  passwordHash: string | null;
  expiresAt: string | null;
  canDownload: boolean;
  canUpload: boolean;
  /** Whether visitors see the organization's name. */
  showOrganization: boolean;
  name: string;
  viewCount: number;
  createdById: string;
  createdAt: string;
  updatedAt: string;
  revokedAt: string | null;
}

export type ShareLinkPatch = Partial<
  Pick<ShareLink, 'name' | 'passwordHash' | 'expiresAt' | 'canDownload' | 'canUpload' | 'showOrganization'>
>;

/** One entry of the share audit list (created, changed, revoked, locked out, visitor upload). */
export interface ShareAuditEntry {
  id: string;
  organizationId: string;
  linkId: string | null;
  action: string;
  /** The signed-in person who did it; null for a visitor. */
  actorUserId: string | null;
  clientAddress: string | null;
  detail: Record<string, unknown>;
  at: string;
}

/** Share links (`storage.shares`): their selections and the share audit list. */
export interface ShareStore {
  /** Creates the link; a selection's items (root ids, in order) with it. */
  create(link: ShareLink, selection: string[]): Promise<void>;
  get(id: string): Promise<ShareLink | null>;
  /** The link with this token hash in any state (the caller decides what is live). */
  findByTokenHash(tokenHash: string): Promise<ShareLink | null>;
  /** The collection's links (revoked ones included), newest first. */
  list(collectionId: string): Promise<ShareLink[]>;
  update(id: string, patch: ShareLinkPatch, at: string): Promise<ShareLink | null>;
  /** Revokes the link if it is not revoked yet; false otherwise. */
  revoke(id: string, at: string): Promise<boolean>;
  /** Adds one to the link's view count. */
  countView(id: string): Promise<void>;
  /** Live items of a selection link in its order, one page. */
  selectionPage(id: string, page: { limit: number; offset: number }): Promise<IdPage>;
  /** Whether the selection link holds the item with this root id. */
  selectionHolds(id: string, rootId: string): Promise<boolean>;
  audit(entry: ShareAuditEntry): Promise<void>;
  /** The organization's audit entries, newest first, one page. */
  auditList(organizationId: string, page: { limit: number; offset: number }): Promise<ShareAuditEntry[]>;
}
