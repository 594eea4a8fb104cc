import { z } from 'zod';
import { defineRoute, queryBool } from '../../../http/route.js';
import { mediaObjectSchema } from '../../kernel/presentCapture.js';
import { BROWSE_MAX_LIMIT } from '../browse.js';
import { collectionTimeline, organizationMedia, organizationTimeline, ORG_MEDIA_DEPTH } from '../timeline.js';
import { browseQuery } from './schemas.js';

/** The filters every timeline read takes: browse's, folders never listed. */
const filters = browseQuery
  .pick({ dateFrom: true, dateTo: true, tags: true, tagFilters: true, favorite: true, archived: true })
  .extend({ type: z.enum(['image', 'video', 'all']).default('all').describe('folders are never on a timeline') })
  .strict();

const buckets = z.object({
  buckets: z.array(
    z.object({ month: z.string().describe('YYYY-MM (UTC)'), count: z.number().int().describe('items that month') }),
  ),
  total: z.number().int().describe('the items of every bucket'),
});

const timelineDescription =
  'Month buckets of the capture time (`takenAt`; the upload time `createdAt` where it is unknown), newest first: ' +
  'live images and videos the filters let through (archived ones left out unless `archived` says otherwise; ' +
  'trashed ones never). dateFrom/dateTo bound the capture time. Months without items are left out.';

const orgParams = z.object({ orgId: z.string() });

export const timelineRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/timeline',
    tag: 'library',
    summary: "A collection's timeline: items per month of capture",
    description: timelineDescription,
    params: z.object({ datasetId: z.string() }),
    query: filters.extend({
      path: browseQuery.shape.path,
      recursive: queryBool.default(true).describe('false: only the folder level itself'),
      clusterId: browseQuery.shape.clusterId,
    }),
    response: buckets,
    responses: { 400: 'invalid parameter', 403: 'no access', 404: 'collection or folder not found' },
    handle: ({ services, principal, params, query }) =>
      collectionTimeline(services, principal, params.datasetId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/api/organization/:orgId/timeline',
    tag: 'library',
    summary: "The organization's timeline: items per month of capture over every collection",
    description: timelineDescription,
    params: orgParams,
    query: filters,
    response: buckets,
    responses: { 400: 'invalid parameter', 403: 'no access', 404: 'organization not found' },
    handle: ({ services, principal, params, query }) => organizationTimeline(services, principal, params.orgId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/api/organization/:orgId/media',
    tag: 'library',
    summary: "The organization's items by capture time, over every collection (or one): a timeline's month",
    description:
      'Live images and videos of every collection of the organization (or of `datasetId`), ordered by capture time ' +
      '(`takenAt`, the upload time where unknown; ties by id), each with its `datasetId`. dateFrom/dateTo bound the ' +
      `capture time, as the timeline's buckets count it. offset + limit may be at most ${ORG_MEDIA_DEPTH}: page ` +
      'deeper by narrowing the dates.',
    params: orgParams,
    query: filters.extend({
      datasetId: z.string().optional().describe('only this collection'),
      sortBy: z.enum(['takenAt']).default('takenAt'),
      sortDirection: z.enum(['asc', 'desc']).default('desc'),
      limit: z.coerce.number().int().min(1).max(BROWSE_MAX_LIMIT).default(100),
      offset: z.coerce.number().int().min(0).default(0),
    }),
    response: z.object({
      media: z.array(mediaObjectSchema),
      pagination: z.object({ total: z.number(), limit: z.number(), offset: z.number(), hasMore: z.boolean() }),
    }),
    responses: { 400: 'invalid parameter', 403: 'no access', 404: 'organization or collection not found' },
    handle: ({ services, principal, params, query }) => organizationMedia(services, principal, params.orgId, query),
  }),
];
