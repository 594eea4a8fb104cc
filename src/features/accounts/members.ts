import { conflict, forbidden, notFound } from '../../platform/errors.js';
import { nowIso, parseUuid } from '../../platform/ids.js';
import { roleAtLeast, type MembershipChange, type Role } from '../../storage/types.js';
import { requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/** GET /api/members: the organization's members with role and latest activity (admin). */
export async function listMembers(deps: Pick<Services, 'storage'>, principal: Principal) {
  requireRole(principal, 'admin');
  const members = await deps.storage.accounts.listMembers(principal.organizationId);
  return members.map((m) => ({
    userId: m.user.id,
    email: m.user.email,
    name: m.user.name,
    role: m.role,
    joinedAt: m.joinedAt,
    lastSeenAt: m.lastSeenAt,
    keyLastUsedAt: m.keyLastUsedAt,
    you: m.user.id === principal.userId,
  }));
}

/**
 * The member a change names, when the caller may change them: admin or owner, and never a member whose role is
 * above the caller's (an admin does not touch an owner). 404 for anyone outside the organization.
 */
async function changeableMember(deps: Pick<Services, 'storage'>, principal: Principal, rawUserId: string) {
  requireRole(principal, 'admin');
  const userId = parseUuid(rawUserId);
  const role = userId ? await deps.storage.accounts.getMembershipRole(principal.organizationId, userId) : null;
  if (!userId || !role) throw notFound('member not found');
  if (!roleAtLeast(principal.role, role))
    throw forbidden(`this member's role (${role}) is above yours (${principal.role})`);
  return userId;
}

function settle(change: MembershipChange): void {
  if (change === 'not_member') throw notFound('member not found');
  if (change === 'last_owner') throw conflict('the organization must keep an owner: make someone else owner first');
}

/** PATCH /api/members/:userId: a new role, never above the caller's, never leaving the organization ownerless. */
export async function changeMemberRole(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  rawUserId: string,
  role: Role,
) {
  const userId = await changeableMember(deps, principal, rawUserId);
  if (!roleAtLeast(principal.role, role)) throw forbidden(`a role cannot be above your own (${principal.role})`);
  settle(await deps.storage.accounts.setMemberRole(principal.organizationId, userId, role));
  return { userId, role };
}

/**
 * DELETE /api/members/:userId: removes the member; their keys in the organization are revoked and their sessions
 * acting in it end in the same transaction, so their next request answers 401.
 */
export async function removeMember(deps: Pick<Services, 'storage'>, principal: Principal, rawUserId: string) {
  const userId = await changeableMember(deps, principal, rawUserId);
  settle(await deps.storage.accounts.removeMember(principal.organizationId, userId, nowIso()));
  return { userId, removed: true };
}
