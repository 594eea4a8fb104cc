import { z } from 'zod';
import { searchOrganization } from './orgSearch.js';
import { defineRoute, queryBool } from '../../http/route.js';
import { placeQueryFields } from '../kernel/placeParams.js';

/** A zod error map that words only the missing-field case, leaving every other check its own message. */
const required = (name: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `${name} is required` : undefined;

export const searchRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/search',
    tag: 'search',
    summary: 'Frame-level natural-language search across every collection of the organization',
    query: z.object({
      // `error` on the type would also replace the length message: name only the missing case there.
      q: z
        .string({ error: required('q') })
        .min(1, 'q is required')
        .max(1000, 'q is at most 1,000 characters'),
      organizationId: z.string({ error: required('organizationId') }).min(1, 'organizationId is required'),
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
      ...placeQueryFields,
    }),
    responses: {
      400: 'missing q or organizationId, a bad date, or a bad country, place, camera or bbox',
      403: 'no access to the organization',
      404: 'organization not found',
    },
    handle: ({ services, principal, query }) => searchOrganization(services, principal, query),
  }),
];
