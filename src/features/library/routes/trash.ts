import { z } from 'zod';
import { defineRoute } from '../../../http/route.js';
import { listTrash, purgeTrash, restoreTrash, TRASH_MAX_IDS } from '../trash.js';

const datasetParams = z.object({ datasetId: z.string() });
const ids = z.array(z.string().max(64)).min(1, 'ids must name at least one entry').max(TRASH_MAX_IDS);

/** The trash of a collection (ours, issue #27): list, restore, purge. */
export const trashRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/trash',
    tag: 'library',
    summary: 'Deleted items and folders, newest deletion first, with when, by whom and where they were',
    params: datasetParams,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(200).default(50),
      offset: z.coerce.number().int().min(0).default(0),
    }),
    responses: { 403: 'no access', 404: 'collection not found' },
    handle: ({ services, principal, params, query }) => listTrash(services, principal, params.datasetId, query),
  }),
  defineRoute({
    method: 'post',
    path: '/api/dataset/:datasetId/trash/restore',
    tag: 'library',
    summary: 'Put trash entries back where they were (a deleted folder on the way is made again)',
    params: datasetParams,
    body: z.object({ ids }),
    responses: { 400: 'no ids, or too many', 403: 'role too low', 404: 'collection or entry not found' },
    handle: ({ services, principal, params, body }) => restoreTrash(services, principal, params.datasetId, body.ids),
  }),
  defineRoute({
    method: 'post',
    path: '/api/dataset/:datasetId/trash/purge',
    tag: 'library',
    summary: 'Delete trash entries for good (all of them without ids), by a background job; answers with the job',
    params: datasetParams,
    body: z.object({ ids: ids.optional() }),
    responses: { 202: 'queued', 400: 'too many ids', 403: 'role too low', 404: 'collection or entry not found' },
    handle: async ({ services, principal, params, body, ctx }) => {
      const answer = await purgeTrash(services, principal, params.datasetId, body.ids);
      ctx.status = 202;
      return answer;
    },
  }),
];
