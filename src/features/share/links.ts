import { invalid, notFound } from '../../platform/errors.js';
import { newUuid, nowIso } from '../../platform/ids.js';
import type { ShareKind, ShareLink, ShareLinkPatch } from '../../storage/shareStore.js';
import { hashPassword, PASSWORD_MAX_LENGTH } from '../accounts/index.js';
import { loadCollection, loadOrganizationId, requireInOrganization, requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';
import { loadAlbum, rootIdsOf } from './albums.js';
import { hashShareToken, newShareToken } from './tokens.js';

type Deps = Pick<Services, 'storage'>;
export const SHARE_PASSWORD_MIN_LENGTH = 4;

/** What a client may set on a link. */
export interface LinkSettings {
  name?: string;
  /** A new password; null: none. */
  password?: string | null;
  /** ISO instant; null: never. */
  expiresAt?: string | null;
  canDownload?: boolean;
  canUpload?: boolean;
  showOrganization?: boolean;
}

export interface NewLinkInput extends LinkSettings {
  kind: ShareKind;
  albumId?: string;
  /** A folder's media id; absent: the collection's root. */
  folderId?: string;
  mediaIds?: string[];
}

export function linkState(l: Pick<ShareLink, 'revokedAt' | 'expiresAt'>, now = Date.now()) {
  if (l.revokedAt) return 'revoked' as const;
  if (l.expiresAt && Date.parse(l.expiresAt) <= now) return 'expired' as const;
  return 'active' as const;
}

/** Whether the share link with this id is live now (the file server's check of a visitor's file URL). */
export async function shareLinkLive(deps: Pick<Services, 'storage'>, linkId: string): Promise<boolean> {
  const link = await deps.storage.shares.get(linkId);
  return link !== null && linkState(link) === 'active';
}

export const presentLink = (l: ShareLink) => ({
  id: l.id,
  datasetId: l.collectionId,
  kind: l.kind,
  targetId: l.targetId,
  name: l.name,
  hasPassword: l.passwordHash !== null,
  expiresAt: l.expiresAt,
  canDownload: l.canDownload,
  canUpload: l.canUpload,
  showOrganization: l.showOrganization,
  viewCount: l.viewCount,
  state: linkState(l),
  createdById: l.createdById,
  createdAt: l.createdAt,
  updatedAt: l.updatedAt,
  revokedAt: l.revokedAt,
});

/** Appends one entry to the organization's share audit list. */
export async function auditShare(
  deps: Deps,
  entry: { organizationId: string; linkId: string | null; action: string; actorUserId: string | null },
  client: string | null,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await deps.storage.shares.audit({ id: newUuid(), ...entry, clientAddress: client, detail, at: nowIso() });
}

/** The settings a client sent, checked, as the store's patch (the password hashed). */
async function toPatch(input: LinkSettings, kind: ShareKind): Promise<ShareLinkPatch> {
  const patch: ShareLinkPatch = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (!name || name.length > 200) throw invalid('name must be 1 to 200 characters');
    patch.name = name;
  }
  if (input.password !== undefined) {
    const p = input.password;
    if (p !== null && (p.length < SHARE_PASSWORD_MIN_LENGTH || p.length > PASSWORD_MAX_LENGTH))
      throw invalid(`password must be ${SHARE_PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`);
    patch.passwordHash = p === null ? null : await hashPassword(p);
  }
  if (input.expiresAt !== undefined) {
    const t = input.expiresAt === null ? null : Date.parse(input.expiresAt);
    if (t !== null && (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}T/.test(input.expiresAt!)))
      throw invalid('expiresAt must be an ISO 8601 date and time');
    if (t !== null && t <= Date.now()) throw invalid('expiresAt must be in the future');
    patch.expiresAt = t === null ? null : new Date(t).toISOString();
  }
  if (input.canUpload && kind === 'selection')
    throw invalid('a selection cannot take uploads (share a folder or album)');
  for (const key of ['canDownload', 'canUpload', 'showOrganization'] as const)
    if (input[key] !== undefined) patch[key] = input[key];
  return patch;
}

/** What the link opens: the album or folder id (checked to be the collection's), or the selection's root ids. */
async function linkTarget(deps: Deps, principal: Principal, collectionId: string, input: NewLinkInput) {
  if (input.kind === 'album') {
    if (!input.albumId) throw invalid('albumId is required for an album link');
    const album = await loadAlbum(deps, principal, input.albumId, 'member');
    if (album.collectionId !== collectionId) throw notFound('album not found');
    return { targetId: album.id, selection: [] };
  }
  if (input.kind === 'folder') {
    if (input.folderId === undefined) return { targetId: null, selection: [] };
    const id = input.folderId.toLowerCase();
    const folder = /^[0-9a-f]{32}$/.test(id) ? await deps.storage.media.get(id) : null;
    if (!folder || folder.type !== 'folder' || folder.status !== 'active' || folder.collectionId !== collectionId)
      throw notFound('folder not found');
    return { targetId: folder.id, selection: [] };
  }
  if (!input.mediaIds?.length) throw invalid('mediaIds is required for a selection link');
  return { targetId: null, selection: await rootIdsOf(deps, collectionId, input.mediaIds) };
}

/** POST /api/dataset/:datasetId/share-links: answers the token and its URL once (only its hash is stored). */
export async function createShareLink(
  deps: Pick<Services, 'storage' | 'urls'>,
  principal: Principal,
  collectionId: string,
  input: NewLinkInput,
  client: string | null,
) {
  const collection = await loadCollection(deps, principal, collectionId, 'member');
  const { targetId, selection } = await linkTarget(deps, principal, collection.id, input);
  const patch = await toPatch({ ...input, name: input.name ?? 'Shared' }, input.kind);
  const token = newShareToken();
  const at = nowIso();
  const link: ShareLink = {
    id: newUuid(),
    organizationId: collection.organizationId,
    collectionId: collection.id,
    kind: input.kind,
    targetId,
    tokenHash: hashShareToken(token),
    passwordHash: patch.passwordHash ?? null,
    expiresAt: patch.expiresAt ?? null,
    canDownload: patch.canDownload ?? false,
    canUpload: patch.canUpload ?? false,
    showOrganization: patch.showOrganization ?? false,
    name: patch.name!,
    viewCount: 0,
    createdById: principal.userId,
    createdAt: at,
    updatedAt: at,
    revokedAt: null,
  };
  await deps.storage.shares.create(link, selection);
  await auditShare(deps, { ...actor(principal, link), action: 'created' }, client, {
    kind: link.kind,
    targetId,
    settings: described(patch),
  });
  return { link: presentLink(link), token, url: `${deps.urls.origin()}/s/${token}` };
}

const actor = (principal: Principal, link: Pick<ShareLink, 'organizationId' | 'id'>) => ({
  organizationId: link.organizationId,
  linkId: link.id,
  actorUserId: principal.userId,
});

/** A patch for the audit list: what changed, never a password or its hash. */
function described(patch: ShareLinkPatch): Record<string, unknown> {
  const { passwordHash, ...rest } = patch;
  return passwordHash === undefined ? rest : { ...rest, password: passwordHash === null ? 'removed' : 'set' };
}

export async function listShareLinks(deps: Deps, principal: Principal, collectionId: string) {
  const collection = await loadCollection(deps, principal, collectionId, 'member');
  return { links: (await deps.storage.shares.list(collection.id)).map(presentLink) };
}

async function loadLink(deps: Deps, principal: Principal, rawId: string): Promise<ShareLink> {
  const link = /^[0-9a-f-]{36}$/i.test(rawId) ? await deps.storage.shares.get(rawId.toLowerCase()) : null;
  const found = requireInOrganization(principal, link, 'share link not found');
  requireRole(principal, 'member');
  return found;
}

export async function updateShareLink(
  deps: Deps,
  principal: Principal,
  linkId: string,
  input: LinkSettings,
  client: string | null,
) {
  const link = await loadLink(deps, principal, linkId);
  if (link.revokedAt) throw invalid('a revoked link cannot be changed');
  const patch = await toPatch(input, link.kind);
  const updated = (await deps.storage.shares.update(link.id, patch, nowIso()))!;
  await auditShare(deps, { ...actor(principal, link), action: 'changed' }, client, described(patch));
  return presentLink(updated);
}

/** DELETE /api/share-links/:linkId: revoked at once (the next visitor request fails). */
export async function revokeShareLink(deps: Deps, principal: Principal, linkId: string, client: string | null) {
  const link = await loadLink(deps, principal, linkId);
  if (await deps.storage.shares.revoke(link.id, nowIso()))
    await auditShare(deps, { ...actor(principal, link), action: 'revoked' }, client);
  return presentLink((await deps.storage.shares.get(link.id))!);
}

/** GET /api/organization/:orgId/share-audit: admins and owners only. */
export async function shareAudit(
  deps: Deps,
  principal: Principal,
  orgId: string,
  page: { limit: number; offset: number },
) {
  const organizationId = await loadOrganizationId(deps, principal, orgId);
  requireRole(principal, 'admin');
  const entries = await deps.storage.shares.auditList(organizationId, page);
  return { entries, limit: page.limit, offset: page.offset };
}
