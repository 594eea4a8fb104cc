import { z } from 'zod';
import { listJobs, reindex, reprocess } from './processing.js';
import { defineRoute } from '../../http/route.js';

export const jobRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/media/:mediaId/reprocess',
    tag: 'processing',
    summary:
      "Queue an item's analysis again (captions, objects, faces, text, embeddings); the user's corrections are kept",
    params: z.object({ mediaId: z.string() }),
    responses: { 202: 'queued', 404: 'not found' },
    handle: async ({ services, principal, params, ctx }) => {
      const result = await reprocess(services, principal, params.mediaId);
      ctx.status = 202;
      return result;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/reindex',
    tag: 'processing',
    summary:
      "Recompute the organization's vectors with the current embedding model, in the background; " +
      'search answers from the old ones until done (admin)',
    responses: { 202: 'queued', 403: 'admin only' },
    handle: async ({ services, principal, ctx }) => {
      ctx.status = 202;
      return reindex(services, principal);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/jobs',
    tag: 'processing',
    summary: 'Queue depth, running and failed jobs with reasons (admin)',
    query: z.object({
      status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']).optional(),
      limit: z.coerce.number().int().min(1).max(500).default(50),
      offset: z.coerce.number().int().min(0).default(0),
    }),
    responses: { 403: 'admin only' },
    handle: ({ services, principal, query }) => listJobs(services, principal, query),
  }),
];
