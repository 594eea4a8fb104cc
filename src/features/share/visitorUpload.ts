import { forbidden } from '../../platform/errors.js';
import { nowIso } from '../../platform/ids.js';
import { roleAtLeast } from '../../storage/types.js';
import { uploadMedia, type UploadInput } from '../library/index.js';
import type { Principal, Services } from '../kernel/services.js';
import { auditShare } from './links.js';
import { presentShared } from './presentShared.js';
import { visitorLink, type VisitorRequest } from './visitor.js';

type GateDeps = Pick<Services, 'storage' | 'tokenKey'>;

/**
 * Whether the visitor may upload into the link now: a live link (unknown, revoked and expired answer alike), its
 * password's share session, the upload permission, and its creator still a member or more. The route runs it
 * before any body byte is read, and the upload again once the file is in (a revocation meanwhile).
 */
export async function uploadableLink(deps: GateDeps, req: VisitorRequest) {
  const link = await visitorLink(deps, req);
  if (!link.canUpload) throw forbidden('this link does not take uploads');
  const role = await deps.storage.accounts.getMembershipRole(link.organizationId, link.createdById);
  if (!role || !roleAtLeast(role, 'member')) throw forbidden('this link does not take uploads any more');
  return { link, role };
}

/**
 * POST /api/share/:token/upload: a visitor adds a photo or video to a link that takes uploads (event photos).
 * It goes into the shared folder, or for an album into the collection's root and into the album. The item is
 * the link creator's, as if they uploaded it, and only while they may still upload (a member or more).
 */
export async function visitorUpload(
  deps: Pick<Services, 'config' | 'storage' | 'blobs' | 'wakeJobs' | 'urls' | 'tokenKey'>,
  req: VisitorRequest,
  file: UploadInput['file'],
) {
  const { link, role } = await uploadableLink(deps, req);
  const owner: Principal = {
    userId: link.createdById,
    organizationId: link.organizationId,
    role,
    keyId: null,
    sessionId: null,
  };
  let path: string | undefined;
  if (link.kind === 'folder' && link.targetId) path = (await deps.storage.media.get(link.targetId))?.path;
  const record = await uploadMedia(deps, owner, { collectionId: link.collectionId, path, file });
  if (link.kind === 'album') await deps.storage.albums.addItems(link.targetId!, [record.rootId], nowIso());
  await auditShare(
    deps,
    { organizationId: link.organizationId, linkId: link.id, action: 'visitor-upload', actorUserId: null },
    req.client,
    { mediaId: record.id, name: record.name },
  );
  return (await presentShared(deps, link, [record]))[0];
}
