import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { changeMemberRole, listMembers, removeMember } from './members.js';
import { writesSettled } from './writeGate.js';

const role = z.enum(['owner', 'admin', 'member', 'viewer']);
const member = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role,
  joinedAt: z.string(),
  lastSeenAt: z.string().nullable().describe("latest activity of the member's sessions in the organization"),
  keyLastUsedAt: z.string().nullable().describe("latest use of the member's API keys in the organization"),
  you: z.boolean(),
});
const params = z.object({ userId: z.string().max(64) });

/** The organization's people: list, change a role, remove (admin screens, /admin/people). */
export const memberRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/members',
    tag: 'account',
    summary: "The organization's members with their role and latest activity (admin)",
    responses: { 403: 'below admin' },
    response: z.object({ members: z.array(member) }),
    handle: async ({ services, principal }) => ({ members: await listMembers(services, principal) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/members/:userId',
    tag: 'account',
    summary:
      "Change a member's role (admin): never above your own, never an owner's as an admin, never the last owner's. " +
      'Answered once the writes that member had in flight have finished',
    params,
    body: z.object({ role }),
    responses: { 403: 'below admin, or a role above yours', 404: 'no such member', 409: 'the last owner' },
    handle: async ({ services, principal, params, body, ctx }) => {
      const changed = await changeMemberRole(services, principal, params.userId, body.role);
      await writesSettled(ctx, changed.userId);
      return changed;
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/members/:userId',
    tag: 'account',
    summary:
      'Remove a member (admin): their API keys in the organization are revoked and their sessions in it end at once',
    params,
    responses: { 403: 'below admin, or a member above you', 404: 'no such member', 409: 'the last owner' },
    handle: async ({ services, principal, params, ctx }) => {
      const removed = await removeMember(services, principal, params.userId);
      await writesSettled(ctx, removed.userId);
      return removed;
    },
  }),
];
