import { z } from 'zod';
import { defineRoute } from '../../../http/route.js';
import { BULK_MAX_IDS, bulkAction, lastBulkAction, undoBulkAction } from '../bulk.js';
import { selectionQuery } from './schemas.js';

const label = z.string().max(200);
const value = z.string().max(500);
const mediaId = z.string().max(64);

const operation = z.discriminatedUnion('type', [
  z.object({ type: z.literal('addTags'), tags: z.array(z.object({ label, value })).min(1).max(100) }),
  z.object({
    type: z.literal('removeTags'),
    tags: z
      .array(z.object({ label, value: value.optional() }))
      .min(1)
      .max(100),
  }),
  z.object({ type: z.literal('setTagGroup'), label, values: z.array(value).max(100) }),
  z.object({ type: z.literal('clearTagGroup'), label }),
  z.object({ type: z.literal('move'), destinationPath: z.string().min(1, 'destinationPath is required').max(2000) }),
  z.object({
    type: z.literal('reprocess'),
    kind: z
      .enum(['analysis', 'metadata'])
      .optional()
      .describe('analysis (default): queue the analysis again; metadata: read the metadata again with ExifTool'),
  }),
  z.object({ type: z.enum(['favorite', 'unfavorite', 'archive', 'unarchive', 'delete', 'restore']) }),
]);

export const bulkRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/media/bulk',
    tag: 'library',
    summary:
      'One operation on many items: listed by id (at most 10,000) or selected by a browse query, less exclusions; ' +
      'the database part is one transaction; answers counts, per-item errors and the actionId to undo',
    body: z
      .object({
        ids: z
          .array(mediaId)
          .max(BULK_MAX_IDS)
          .optional()
          .describe('at most 10,000; a larger selection as `selection`'),
        selection: z
          .object({
            datasetId: z.string(),
            query: selectionQuery.describe(
              'the parameters of GET /api/dataset/{datasetId}/media, without limit/offset',
            ),
          })
          .optional(),
        exclude: z.array(mediaId).max(BULK_MAX_IDS).optional().describe('ids left out of the selection'),
        operation,
      })
      .strict(),
    responses: {
      400: 'invalid operation, selection or destination',
      403: 'role too low, or no access to the collection',
      404: 'collection or folder not found',
    },
    handle: ({ services, principal, body }) => bulkAction(services, principal, body),
  }),
  defineRoute({
    method: 'get',
    path: '/api/media/bulk/last',
    tag: 'library',
    summary: "The caller's last bulk action (undoable while not undone and still held), or null",
    handle: ({ services, principal }) => lastBulkAction(services, principal),
  }),
  defineRoute({
    method: 'post',
    path: '/api/media/bulk/:actionId/undo',
    tag: 'library',
    summary: "Reverse exactly what the caller's last bulk action changed (once)",
    params: z.object({ actionId: z.string().max(64) }),
    responses: { 404: 'no such action of yours (only the last one is held)', 409: 'undone already, or cannot go back' },
    handle: ({ services, principal, params }) => undoBulkAction(services, principal, params.actionId),
  }),
];
