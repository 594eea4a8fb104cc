import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { acceptInvite, createInvite, describeInvite, listInvites, resendInvite, revokeInvite } from './invites.js';
import { clientOf, signedInReply, signInPassword } from './sessionRoutes.js';

const role = z.enum(['owner', 'admin', 'member', 'viewer']);
const token = z.string().max(200);

/** Inviting people into the caller's organization, and the invite link's page. */
export const inviteRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/invites',
    tag: 'account',
    summary: 'Invite an email with a role (admin): answers the one-time link once',
    body: z.object({
      email: z.string().max(320),
      role,
      expiresInDays: z.number().int().min(1).max(30).optional(),
    }),
    responses: { 403: 'below admin, or a role above your own', 409: 'already a member' },
    handle: ({ services, principal, body }) => createInvite(services, principal, body),
  }),
  defineRoute({
    method: 'get',
    path: '/api/invites',
    tag: 'account',
    summary: "The organization's pending invites (admin; no tokens)",
    handle: async ({ services, principal }) => ({ invites: await listInvites(services, principal) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/invites/:inviteId',
    tag: 'account',
    summary: 'Withdraw a pending invite (admin)',
    params: z.object({ inviteId: z.string().max(64) }),
    responses: { 404: 'no such pending invite' },
    handle: async ({ services, principal, params }) => {
      await revokeInvite(services, principal, params.inviteId);
      return { id: params.inviteId, revoked: true };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/invites/:inviteId/resend',
    tag: 'account',
    summary: 'A new one-time link for a pending invite (admin): the old link stops working',
    params: z.object({ inviteId: z.string().max(64) }),
    responses: { 403: 'below admin, or a role above your own', 404: 'no such pending invite' },
    handle: ({ services, principal, params }) => resendInvite(services, principal, params.inviteId),
  }),
  defineRoute({
    method: 'get',
    path: '/api/auth/invite',
    tag: 'sign-in',
    summary: "An invite link's details for its page: {email, role, organizationName, expiresAt, accountExists}",
    auth: 'none',
    query: z.object({ token }),
    responses: { 403: 'used, withdrawn or expired', 404: 'no such invite' },
    handle: ({ services, query }) => describeInvite(services, query.token),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/accept-invite',
    tag: 'sign-in',
    summary: 'Accept an invite: a new account (or, for an existing one, its password) and sign in',
    auth: 'none',
    body: z.object({
      token,
      // A new account's password must follow the new-password rule (checked by acceptInvite); an existing one's is checked.
      password: signInPassword,
      name: z.string().max(200).optional(),
    }),
    responses: {
      401: "wrong password for the email's account",
      403: 'used, withdrawn or expired',
      404: 'no such invite',
    },
    handle: async ({ services, body, ctx }) => signedInReply(ctx, await acceptInvite(services, body, clientOf(ctx))),
  }),
];
