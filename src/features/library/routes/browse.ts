import { z } from 'zod';
import { browse } from '../browse.js';
import { browseQuery } from './schemas.js';
import { tagGroups } from '../tags.js';
import { listClusters } from '../../faces/index.js';
import { defineRoute, queryBool } from '../../../http/route.js';

const datasetParams = z.object({ datasetId: z.string() });

export const browseRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/media',
    tag: 'library',
    summary: 'Browse, filter and sort a collection (one folder level, or recursive)',
    params: datasetParams,
    query: browseQuery,
    responses: {
      400: 'invalid parameter or unknown similarToObjectModel',
      403: 'no access',
      404: 'collection, folder or similarToObjectId not found',
    },
    handle: ({ services, principal, params, query, ctx }) =>
      browse(services, principal, params.datasetId, { ...query, sortExplicit: ctx.query.sortBy !== undefined }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/tags',
    tag: 'library',
    summary: 'Tag groups of active, current items, values sorted',
    params: datasetParams,
    responses: { 403: 'no access', 404: 'collection not found' },
    handle: async ({ services, principal, params }) => ({
      tags: await tagGroups(services, principal, params.datasetId),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/clusters',
    tag: 'library',
    summary:
      'Face clusters (people) of a collection, named first, then biggest first, with a preview face; browse one with clusterId',
    params: datasetParams,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(500).default(50),
      offset: z.coerce.number().int().min(0).default(0),
      minSize: z.coerce.number().int().min(1).default(1),
      includeHidden: queryBool.default(false).describe('hidden people too (default: only visible ones)'),
    }),
    responses: { 403: 'no access', 404: 'collection not found' },
    handle: ({ services, principal, params, query }) => listClusters(services, principal, params.datasetId, query),
  }),
];
