import { z } from 'zod';
import { browse, BROWSE_MAX_LIMIT } from '../browse.js';
import { tagGroups } from '../tags.js';
import { listClusters } from '../../faces/index.js';
import { defineRoute, queryBool } from '../../../http/route.js';

const datasetParams = z.object({ datasetId: z.string() });

/** The spec's browse parameters, with its defaults. */
export const browseQuery = z.object({
  path: z.string().optional().describe('ltree path of the folder to list; default the collection root'),
  recursive: queryBool.default(false).describe('true lists every descendant'),
  limit: z.coerce.number().int().min(1).max(BROWSE_MAX_LIMIT).default(10),
  offset: z.coerce.number().int().min(0).default(0),
  type: z.enum(['image', 'video', 'folder', 'all']).default('all'),
  dateFrom: z.string().optional().describe('YYYY-MM-DD, inclusive (UTC; the date dateField names)'),
  dateTo: z.string().optional().describe('YYYY-MM-DD, inclusive (UTC; the date dateField names)'),
  dateField: z
    .enum(['createdAt', 'takenAt'])
    .optional()
    .describe(
      'ours: the date dateFrom/dateTo bound; takenAt is the capture time, or createdAt where it is unknown. ' +
        'Default: takenAt when sortBy=takenAt, else createdAt (the spec)',
    ),
  sortBy: z
    .enum(['name', 'createdAt', 'type', 'description', 'prompt', 'takenAt'])
    .default('createdAt')
    .describe('takenAt (ours): the capture time, items without one at their createdAt'),
  sortDirection: z.enum(['asc', 'desc']).default('desc'),
  tags: z.string().optional().describe('comma-separated values; an item must carry all of them (any group)'),
  tagFilters: z.string().optional().describe('URL-encoded JSON {group: [values]}: AND between groups, OR within one'),
  mediaId: z.string().optional(),
  clusterId: z.string().optional(),
  albumId: z.string().optional().describe('ours: only items in this album (any folder; recursive over the collection)'),
  q: z.string().optional().describe('natural-language query (scored mode)'),
  similarToObjectId: z.string().optional(),
  similarToObjectModel: z.enum(['faces', 'objects', 'shoeprints']).optional(),
  minScore: z.coerce.number().min(0).max(1).default(0.05),
  favorite: queryBool.optional().describe('ours: true lists favourites only (false or absent: any)'),
  archived: z
    .enum(['exclude', 'include', 'only'])
    .default('exclude')
    .describe('ours: archived items are left out of listings and search unless `include` (with the rest) or `only`'),
});

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
