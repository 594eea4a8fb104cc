import { z } from 'zod';
import { defineRoute } from '../../../http/route.js';
import { clientAddress } from '../../accounts/index.js';
import { ALBUM_BATCH_MAX } from '../albums.js';
import { createShareLink, listShareLinks, revokeShareLink, shareAudit, updateShareLink } from '../links.js';

const settings = {
  name: z.string().max(200).optional(),
  password: z.string().max(1024).nullable().optional().describe('null: no password'),
  expiresAt: z.string().max(40).nullable().optional().describe('ISO 8601 instant; null: never'),
  canDownload: z.boolean().optional().describe('visitors may download the originals'),
  canUpload: z.boolean().optional().describe('visitors may upload into the album or folder (event photos)'),
  showOrganization: z.boolean().optional().describe("visitors see the organization's name"),
};

const link = z.object({
  id: z.string(),
  datasetId: z.string(),
  kind: z.enum(['album', 'folder', 'selection']),
  targetId: z.string().nullable(),
  name: z.string(),
  hasPassword: z.boolean(),
  expiresAt: z.string().nullable(),
  canDownload: z.boolean(),
  canUpload: z.boolean(),
  showOrganization: z.boolean(),
  viewCount: z.number(),
  state: z.enum(['active', 'expired', 'revoked']),
  createdById: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  revokedAt: z.string().nullable(),
});

/** Share links (owners' side): create, list, change, revoke; the audit list for admins. */
export const linkRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/dataset/:datasetId/share-links',
    tag: 'share',
    summary: 'Create a share link for an album, a folder (live) or a selection of items (fixed)',
    description:
      'Answers the token and the visitor URL (`/s/<token>`) once: only the token’s hash is stored. ' +
      'The password is hashed with scrypt.',
    params: z.object({ datasetId: z.string() }),
    body: z
      .object({
        kind: z.enum(['album', 'folder', 'selection']),
        albumId: z.string().max(64).optional(),
        folderId: z.string().max(64).optional().describe('a folder’s media id; absent: the collection root'),
        mediaIds: z.array(z.string().max(64)).max(ALBUM_BATCH_MAX).optional(),
        ...settings,
      })
      .strict(),
    response: z.object({ link, token: z.string(), url: z.string() }),
    responses: { 400: 'invalid settings', 403: 'role too low or no access', 404: 'album, folder or item not found' },
    handle: ({ services, principal, params, body, ctx }) =>
      createShareLink(services, principal, params.datasetId, body, clientAddress(ctx)),
  }),
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/share-links',
    tag: 'share',
    summary: "The collection's share links with their view counts, newest first (revoked ones too)",
    params: z.object({ datasetId: z.string() }),
    response: z.object({ links: z.array(link) }),
    responses: { 403: 'role too low or no access', 404: 'collection not found' },
    handle: ({ services, principal, params }) => listShareLinks(services, principal, params.datasetId),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/share-links/:linkId',
    tag: 'share',
    summary: 'Change a share link: name, password, expiry, permissions',
    params: z.object({ linkId: z.string() }),
    body: z.object(settings).strict(),
    response: link,
    responses: { 400: 'invalid settings or a revoked link', 403: 'role too low', 404: 'share link not found' },
    handle: ({ services, principal, params, body, ctx }) =>
      updateShareLink(services, principal, params.linkId, body, clientAddress(ctx)),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/share-links/:linkId',
    tag: 'share',
    summary: 'Revoke a share link at once (its visitors’ next request fails)',
    params: z.object({ linkId: z.string() }),
    response: link,
    responses: { 403: 'role too low', 404: 'share link not found' },
    handle: ({ services, principal, params, ctx }) =>
      revokeShareLink(services, principal, params.linkId, clientAddress(ctx)),
  }),
  defineRoute({
    method: 'get',
    path: '/api/organization/:orgId/share-audit',
    tag: 'share',
    summary: 'Every share action (created, changed, revoked, password lockout, visitor upload), newest first',
    params: z.object({ orgId: z.string() }),
    query: z.object({
      limit: z.coerce.number().int().min(1).max(500).default(100),
      offset: z.coerce.number().int().min(0).default(0),
    }),
    responses: { 403: 'admins and owners only', 404: 'organization not found' },
    handle: ({ services, principal, params, query }) => shareAudit(services, principal, params.orgId, query),
  }),
];
