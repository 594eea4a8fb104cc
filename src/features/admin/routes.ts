import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { queryBool } from '../../http/route.js';
import { storageUsage } from './storageUsage.js';

/** The storage screen's figures (/admin/storage); its integrity report is GET /api/admin/integrity. */
export const adminRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/admin/storage',
    tag: 'admin',
    summary:
      'Bytes and items per collection of the organization (originals, deleted, derived files with derived=true), ' +
      "the organization's totals and the database's size (admin)",
    query: z.object({ derived: queryBool.optional() }),
    responses: { 403: 'admin only' },
    handle: ({ services, principal, query }) => storageUsage(services, principal, { derived: query.derived ?? false }),
  }),
];
