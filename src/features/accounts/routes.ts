import { z } from 'zod';
import { createKey, issueToken, listKeys, renameKey, revokeKey } from './auth.js';
import { createOrganization, listOrganizations, me } from './organizations.js';
import { defineRoute } from '../../http/route.js';

const role = z.enum(['owner', 'admin', 'member', 'viewer']);

export const accountRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/me',
    tag: 'account',
    summary: "The caller's user and default organization",
    handle: ({ services, principal }) => me(services, principal),
  }),
  defineRoute({
    method: 'get',
    path: '/api/auth/organization/list',
    tag: 'account',
    summary: 'Organizations the caller belongs to',
    handle: async ({ services, principal }) => ({ organizations: await listOrganizations(services, principal) }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/organization/create',
    tag: 'account',
    summary: 'Create an organization (admin keys); the caller becomes its owner and this key may mint keys in it',
    body: z.object({ name: z.string().min(1).max(200), slug: z.string().max(63).optional() }),
    responses: { 403: 'key below admin', 409: 'slug taken' },
    handle: ({ services, principal, body }) => createOrganization(services, principal, body),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/token',
    tag: 'account',
    summary: "Exchange the key for a signed Bearer token with the key's scope",
    handle: ({ services, principal }) => issueToken(services, principal),
  }),
  defineRoute({
    method: 'post',
    path: '/api/keys',
    tag: 'account',
    summary: 'Create an API key (shown once; stored only as a hash)',
    body: z.object({
      name: z.string().max(200).optional(),
      organizationId: z.string().optional(),
      role: role.optional(),
    }),
    responses: { 403: "another organization, role above the key's, or not admin", 404: 'organization not found' },
    handle: ({ services, principal, body }) => createKey(services, principal, body),
  }),
  defineRoute({
    method: 'get',
    path: '/api/keys',
    tag: 'account',
    summary: "List the organization's API keys (no secrets)",
    handle: async ({ services, principal }) => ({ keys: await listKeys(services, principal) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/keys/:keyId',
    tag: 'account',
    summary: 'Rename an API key (admin)',
    params: z.object({ keyId: z.string().max(64) }),
    body: z.object({ name: z.string().min(1).max(200) }),
    responses: { 404: 'no such key' },
    handle: ({ services, principal, params, body }) => renameKey(services, principal, params.keyId, body.name),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/keys/:keyId',
    tag: 'account',
    summary: 'Revoke an API key at once',
    params: z.object({ keyId: z.string() }),
    responses: { 404: 'no such key' },
    handle: async ({ services, principal, params }) => {
      await revokeKey(services, principal, params.keyId);
      return { id: params.keyId, revoked: true };
    },
  }),
];
