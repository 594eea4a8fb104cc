import { z } from 'zod';
import { searchOrganization } from './orgSearch.js';
import { defineRoute, queryBool } from '../../http/route.js';

export const searchRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/search',
    tag: 'search',
    summary: 'Frame-level natural-language search across every collection of the organization',
    query: z.object({
      q: z.string({ error: 'q is required' }).min(1, 'q is required').max(1000),
      organizationId: z.string({ error: 'organizationId is required' }).min(1, 'organizationId is required'),
      limit: z.coerce.number().int().min(1).max(200).default(20),
      minScore: z.coerce.number().min(0).max(1).default(0).describe('leave out frames scoring below this (0..1)'),
      sortBy: z
        .enum(['rank', 'createdAt'])
        .default('rank')
        .describe('rank: best first; createdAt: the best `limit` matches ordered by date'),
      sortDirection: z.enum(['asc', 'desc']).default('desc'),
      type: z.enum(['image', 'video', 'all']).default('all'),
      dateFrom: z.string().optional().describe('YYYY-MM-DD, inclusive (createdAt, UTC)'),
      dateTo: z.string().optional().describe('YYYY-MM-DD, inclusive (createdAt, UTC)'),
      favorite: queryBool.optional().describe('ours: true finds favourites only'),
      archived: z
        .enum(['exclude', 'include', 'only'])
        .default('exclude')
        .describe('ours: archived items are left out unless `include` (with the rest) or `only`'),
    }),
    responses: {
      400: 'missing q or organizationId, or a bad date',
      403: 'no access to the organization',
      404: 'organization not found',
    },
    handle: ({ services, principal, query }) => searchOrganization(services, principal, query),
  }),
];
