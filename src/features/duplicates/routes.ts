import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { dismissGroup, resolveGroup, startScan } from './actions.js';
import { listDuplicates } from './review.js';

const datasetParams = z.object({ datasetId: z.string() });
const mediaIds = z.array(z.string().max(64)).max(500);

export const duplicateRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/duplicates',
    tag: 'duplicates',
    summary: "Duplicate groups of a collection (its latest scan's, less trashed items and dismissed groups), paged",
    description:
      'Each group: `kind` `exact` (the same bytes) or `near` (the same picture by the embedder: cosine ≥ the ' +
      "model's nearDuplicate threshold), `similarity` (the weakest pair's cosine), `keepId` (the suggestion: most " +
      'pixels, then biggest file, then most tags and description, then oldest), and its items as media objects ' +
      'with their `folder`. `scan.status`: `none` (never scanned), `running` (queued or running), `done`.',
    params: datasetParams,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(20),
      offset: z.coerce.number().int().min(0).default(0),
    }),
    responses: { 403: 'no access to the collection', 404: 'collection not found' },
    handle: ({ services, principal, params, query }) => listDuplicates(services, principal, params.datasetId, query),
  }),
  defineRoute({
    method: 'post',
    path: '/api/dataset/:datasetId/duplicates/scan',
    tag: 'duplicates',
    summary: 'Start a duplicates scan of the collection (a background job; progress as job.progress `duplicates`)',
    params: datasetParams,
    responses: { 403: 'role below member, or no access', 404: 'collection not found' },
    handle: ({ services, principal, params }) => startScan(services, principal, params.datasetId),
  }),
  defineRoute({
    method: 'post',
    path: '/api/dataset/:datasetId/duplicates/resolve',
    tag: 'duplicates',
    summary: 'Keep one item of a group and move the others to the trash, merging their tags into the kept one',
    description:
      'The trashed items are soft-deleted as DELETE /api/media/{id} does (restorable from the trash). ' +
      '`mergeTags` (default true) adds their tag values to the kept item; `name` and `description`, when given, ' +
      'become the kept item’s (the web app offers the group’s own).',
    params: datasetParams,
    body: z
      .object({
        keepId: z.string().max(64),
        trashIds: mediaIds.min(1),
        mergeTags: z.boolean().default(true),
        name: z.string().trim().min(1).max(1024).optional(),
        description: z.string().max(10_000).optional(),
      })
      .strict(),
    responses: {
      400: 'keepId among trashIds, or an item of another collection',
      403: 'role below member, or no access',
      404: 'collection or item not found',
    },
    handle: ({ services, principal, params, body }) => resolveGroup(services, principal, params.datasetId, body),
  }),
  defineRoute({
    method: 'post',
    path: '/api/dataset/:datasetId/duplicates/dismiss',
    tag: 'duplicates',
    summary: 'Mark a group as not duplicates: a group made only of these items is not listed again',
    params: datasetParams,
    body: z.object({ mediaIds: mediaIds.min(2) }).strict(),
    responses: {
      400: 'fewer than two items',
      403: 'role below member, or no access',
      404: 'collection or item not found',
    },
    handle: ({ services, principal, params, body }) =>
      dismissGroup(services, principal, params.datasetId, body.mediaIds),
  }),
];
