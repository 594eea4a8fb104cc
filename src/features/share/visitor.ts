/**
 * What a visitor of a share link may do: nothing but these use cases, each of which starts from the token.
 * The visitor is no user: they hold a share session (features/share/tokens.ts), which no other route reads.
 * An unknown, expired or revoked token gets one and the same answer (404 `share link not found`): the token
 * is hashed and looked up whatever it is, and the found hash compared in constant time.
 */
import { DomainError, notFound } from '../../platform/errors.js';
import { pathLabel } from '../../platform/ids.js';
import type { ShareLink } from '../../storage/shareStore.js';
import type { MediaRecord } from '../../storage/types.js';
import { verifyPassword } from '../accounts/index.js';
import type { Services } from '../kernel/services.js';
import { inOrder } from './albums.js';
import {
  addressAttemptKey,
  linkAttemptKey,
  SHARE_FAILURES_PER_ADDRESS,
  SHARE_FAILURES_PER_LINK,
  storedAttemptLimiter,
  type AttemptLimiter,
} from './limits.js';
import { auditShare, linkState } from './links.js';
import { presentShared } from './presentShared.js';
import { checkShareSession, hashShareToken, sameDigest, shareSessionValue } from './tokens.js';
import { NO_FILTERS } from '../../storage/browseQuery.js';

type Deps = Pick<Services, 'storage' | 'tokenKey'>;

/** A visitor's request: the token from the path, the share session cookie, the client's address. */
export interface VisitorRequest {
  token: string;
  session: string | undefined;
  client: string | null;
}

/** The one answer for every token that opens nothing. */
export const linkGone = () => notFound('share link not found');
const locked = () => new DomainError('unauthenticated', 'this link needs its password');

const limiterOf = (deps: Pick<Services, 'storage'>): AttemptLimiter => storedAttemptLimiter(deps.storage.sessions);

/** The live link the token names, else linkGone. */
export async function liveLink(deps: Pick<Services, 'storage'>, token: string): Promise<ShareLink> {
  const hash = hashShareToken(token);
  const link = await deps.storage.shares.findByTokenHash(hash);
  const found = link !== null && sameDigest(link.tokenHash, hash);
  if (!found || linkState(link) !== 'active') throw linkGone();
  return link;
}

/** The live link the visitor may use now: with a password, only with a valid share session. */
export async function visitorLink(deps: Deps, req: VisitorRequest): Promise<ShareLink> {
  const link = await liveLink(deps, req.token);
  if (link.passwordHash !== null && !checkShareSession(deps.tokenKey, link, req.session, Date.now())) throw locked();
  return link;
}

const tooMany = (seconds: number) =>
  new DomainError('rate_limited', `too many wrong passwords; try again in ${seconds} s`, {
    retryAfterSeconds: seconds,
  });

/**
 * POST /api/share/:token/unlock: the password, checked with the limits per link and per address; answers
 * the share session's value (the route sets it as the cookie). A link without a password unlocks as it is.
 */
export async function unlock(deps: Deps, req: VisitorRequest, password: string): Promise<string> {
  const limiter = limiterOf(deps);
  const addressKey = addressAttemptKey(req.client);
  const addressWait = await limiter.lockedFor(addressKey, SHARE_FAILURES_PER_ADDRESS);
  if (addressWait) throw tooMany(addressWait);
  let link: ShareLink;
  try {
    link = await liveLink(deps, req.token);
  } catch (err) {
    await limiter.fail(addressKey, SHARE_FAILURES_PER_ADDRESS); // guessing tokens counts as guessing passwords
    throw err;
  }
  const linkKey = linkAttemptKey(link.id);
  const linkWait = await limiter.lockedFor(linkKey, SHARE_FAILURES_PER_LINK);
  if (linkWait) throw tooMany(linkWait);
  if (link.passwordHash !== null && !(await verifyPassword(password, link.passwordHash))) {
    const lockedNow = await limiter.fail(linkKey, SHARE_FAILURES_PER_LINK);
    const addressLocked = await limiter.fail(addressKey, SHARE_FAILURES_PER_ADDRESS);
    if (lockedNow || addressLocked)
      await auditShare(
        deps,
        { organizationId: link.organizationId, linkId: link.id, action: 'password-lockout', actorUserId: null },
        req.client,
        { scope: lockedNow ? 'link' : 'address' },
      );
    throw new DomainError('unauthenticated', 'wrong password');
  }
  return shareSessionValue(deps.tokenKey, link, Date.now());
}

/** GET /api/share/:token: what the page shows above the grid; counts a view. */
export async function shareInfo(deps: Deps, req: VisitorRequest) {
  const link = await visitorLink(deps, req);
  await deps.storage.shares.countView(link.id);
  const org = link.showOrganization ? await deps.storage.accounts.getOrganization(link.organizationId) : null;
  return {
    name: link.name,
    kind: link.kind,
    canDownload: link.canDownload,
    canUpload: link.canUpload,
    expiresAt: link.expiresAt,
    organizationName: org?.name ?? null,
  };
}

/** The folder a folder link opens (its path), or linkGone once the folder is deleted. */
async function folderPath(deps: Pick<Services, 'storage'>, link: ShareLink): Promise<string> {
  if (link.targetId === null) return pathLabel(link.collectionId);
  const folder = await deps.storage.media.get(link.targetId);
  if (!folder || folder.status !== 'active') throw linkGone();
  return folder.path;
}

/** GET /api/share/:token/media: the shared items, one page (album and selection in their order, a folder newest first). */
export async function sharedMedia(
  deps: Deps & Pick<Services, 'urls'>,
  req: VisitorRequest,
  page: { limit: number; offset: number },
) {
  const link = await visitorLink(deps, req);
  let items: MediaRecord[];
  let total: number;
  if (link.kind === 'folder') {
    const listed = await deps.storage.media.browse({
      collectionId: link.collectionId,
      path: await folderPath(deps, link),
      recursive: true,
      ...NO_FILTERS,
      types: ['image', 'video'],
      sortBy: 'takenAt',
      sortDirection: 'desc',
      ...page,
    });
    ({ items, total } = listed);
  } else {
    if (link.kind === 'album' && !(await deps.storage.albums.get(link.targetId!))) throw linkGone();
    const ids =
      link.kind === 'album'
        ? await deps.storage.albums.page(link.targetId!, page)
        : await deps.storage.shares.selectionPage(link.id, page);
    items = await inOrder(deps, ids.ids);
    total = ids.total;
  }
  return {
    media: await presentShared(deps, link, items),
    pagination: { total, limit: page.limit, offset: page.offset, hasMore: page.offset + items.length < total },
  };
}

/** Whether a live item is one the link shares. */
export async function linkHolds(deps: Pick<Services, 'storage'>, link: ShareLink, m: MediaRecord): Promise<boolean> {
  if (m.status !== 'active' || !m.isCurrent || m.type === 'folder' || m.collectionId !== link.collectionId)
    return false;
  if (link.kind === 'album') return deps.storage.albums.holds(link.targetId!, m.rootId);
  if (link.kind === 'selection') return deps.storage.shares.selectionHolds(link.id, m.rootId);
  return m.path.startsWith(`${await folderPath(deps, link)}.`);
}

/** GET /api/share/:token/media/:mediaId: one shared item; anything else answers 404 as an unknown id does. */
export async function sharedItem(deps: Deps & Pick<Services, 'urls'>, req: VisitorRequest, mediaId: string) {
  const link = await visitorLink(deps, req);
  const m = /^[0-9a-f]{32}$/i.test(mediaId) ? await deps.storage.media.get(mediaId.toLowerCase()) : null;
  if (!m || !(await linkHolds(deps, link, m))) throw notFound('media not found');
  return (await presentShared(deps, link, [m]))[0];
}
