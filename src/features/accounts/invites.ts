import { randomBytes } from 'node:crypto';
import { conflict, forbidden, notFound } from '../../platform/errors.js';
import { newUuid, nowIso } from '../../platform/ids.js';
import { roleAtLeast, type InviteRecord, type Role, type User } from '../../storage/types.js';
import { requireInOrganization, requireRole } from '../kernel/access.js';
import { hashKey } from './auth.js';
import { hashPassword, normalizeEmail, requireNewPassword } from './passwords.js';
import { startSession, type ClientInfo, type SignedIn } from './sessions.js';
import { checkPassword } from './signIn.js';
import type { Principal, Services } from '../kernel/services.js';

export const INVITE_DEFAULT_DAYS = 7;

const presentInvite = (i: InviteRecord) => ({
  id: i.id,
  email: i.email,
  role: i.role,
  organizationId: i.organizationId,
  createdAt: i.createdAt,
  expiresAt: i.expiresAt,
  invitedBy: i.invitedBy,
});

/**
 * POST /api/invites: an admin or owner of the caller's organization invites an email with a role no higher
 * than their own. Answers the one-time link once (only the token's hash is stored); an earlier pending invite
 * for the same email is withdrawn.
 */
export async function createInvite(
  deps: Pick<Services, 'storage' | 'urls'>,
  principal: Principal,
  input: { email: string; role: Role; expiresInDays?: number },
) {
  requireRole(principal, 'admin');
  if (!roleAtLeast(principal.role, input.role))
    throw forbidden(`an invite cannot grant more than your role (${principal.role})`);
  const email = normalizeEmail(input.email);
  const existing = await deps.storage.accounts.findCredentials(email);
  if (existing && (await deps.storage.accounts.getMembershipRole(principal.organizationId, existing.user.id)))
    throw conflict('this email already belongs to a member of the organization');
  const token = randomBytes(32).toString('base64url');
  const at = nowIso();
  const invite: InviteRecord = {
    id: newUuid(),
    organizationId: principal.organizationId,
    email,
    role: input.role,
    tokenHash: hashKey(token),
    invitedBy: principal.userId,
    createdAt: at,
    expiresAt: new Date(Date.parse(at) + (input.expiresInDays ?? INVITE_DEFAULT_DAYS) * 86_400_000).toISOString(),
    acceptedAt: null,
    acceptedBy: null,
    revokedAt: null,
  };
  await deps.storage.invites.revokePendingFor(invite.organizationId, email, at);
  await deps.storage.invites.create(invite);
  const { id, role, organizationId, expiresAt } = invite;
  return { id, email, role, organizationId, expiresAt, token, url: `${deps.urls.origin()}/invite?token=${token}` };
}

/** GET /api/invites: the organization's pending invites (admin), without tokens. */
export async function listInvites(deps: Pick<Services, 'storage'>, principal: Principal) {
  requireRole(principal, 'admin');
  return (await deps.storage.invites.listPending(principal.organizationId, nowIso())).map(presentInvite);
}

/** DELETE /api/invites/:inviteId: withdraws a pending invite of the caller's organization (admin). */
export async function revokeInvite(deps: Pick<Services, 'storage'>, principal: Principal, id: string): Promise<void> {
  requireRole(principal, 'admin');
  requireInOrganization(principal, await deps.storage.invites.get(id), 'invite not found');
  if (!(await deps.storage.invites.revoke(id, nowIso()))) throw notFound('invite not found');
}

/**
 * POST /api/invites/:inviteId/resend: a new link for a pending invite of the caller's organization (admin, up to
 * their role): the old link stops working, the new one has the same email and role and a fresh expiry.
 */
export async function resendInvite(deps: Pick<Services, 'storage' | 'urls'>, principal: Principal, id: string) {
  requireRole(principal, 'admin');
  const invite = requireInOrganization(principal, await deps.storage.invites.get(id), 'invite not found');
  if (invite.acceptedAt || invite.revokedAt || Date.parse(invite.expiresAt) <= Date.now())
    throw notFound('invite not found');
  return createInvite(deps, principal, { email: invite.email, role: invite.role });
}

/** The pending invite a token names; 404 for an unknown token, 403 saying why for one that is no longer usable. */
async function pendingInvite(deps: Pick<Services, 'storage'>, token: string): Promise<InviteRecord> {
  const invite = await deps.storage.invites.findByTokenHash(hashKey(token));
  if (!invite) throw notFound('invite not found');
  if (invite.acceptedAt) throw forbidden('this invite was used already');
  if (invite.revokedAt) throw forbidden('this invite was withdrawn');
  if (Date.parse(invite.expiresAt) <= Date.now()) throw forbidden('this invite has expired; ask for a new one');
  return invite;
}

/**
 * GET /api/auth/invite?token=: what the invite page shows. `accountExists`: the email has an account
 * already, so accepting asks for that account's password instead of a new one.
 */
export async function describeInvite(deps: Pick<Services, 'storage'>, token: string) {
  const invite = await pendingInvite(deps, token);
  const [organization, account] = await Promise.all([
    deps.storage.accounts.getOrganization(invite.organizationId),
    deps.storage.accounts.findCredentials(invite.email),
  ]);
  if (!organization) throw notFound('invite not found');
  return {
    email: invite.email,
    role: invite.role,
    organizationName: organization.name,
    expiresAt: invite.expiresAt,
    accountExists: account !== null,
  };
}

/**
 * POST /api/auth/accept-invite: creates the user with the password (and name), or, when the email has an
 * account already, checks that account's password (under the sign-in lockout) and adds the membership; then
 * signs in, in the invite's organization. The invite is taken atomically: it works once.
 */
export async function acceptInvite(
  deps: Pick<Services, 'storage'>,
  input: { token: string; password: string; name?: string },
  client: ClientInfo,
): Promise<SignedIn> {
  const invite = await pendingInvite(deps, input.token);
  const existing = await deps.storage.accounts.findCredentials(invite.email);
  let member: { userId: string; newUser?: { user: User; passwordHash: string } };
  if (existing) {
    member = { userId: await checkPassword(deps, invite.email, input.password) };
  } else {
    requireNewPassword(input.password);
    const user = {
      id: newUuid(),
      email: invite.email,
      name: input.name?.trim() || invite.email.split('@')[0],
      createdAt: nowIso(),
    };
    member = { userId: user.id, newUser: { user, passwordHash: await hashPassword(input.password) } };
  }
  if (!(await deps.storage.invites.accept(invite.id, nowIso(), member)))
    throw forbidden('this invite was used already');
  return startSession(deps, member.userId, invite.organizationId, client);
}
