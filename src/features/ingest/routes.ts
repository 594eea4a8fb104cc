import { z } from 'zod';
import { listJobs, reindex, reprocess } from './processing.js';
import { defineRoute } from '../../http/route.js';

const counts = { queued: z.number(), running: z.number(), succeeded: z.number(), failed: z.number() };
const jobCounts = z.object({ ...counts, cancelled: z.number() });

/** GET /api/jobs's answer (the ingest's progress: progress.ts). */
export const jobsResponse = z.object({
  stats: jobCounts.extend({
    delayed: z.number().describe('queued jobs waiting for their run_after (backoff), included in queued'),
    oldestQueuedAt: z.string().nullable(),
    byType: z.record(z.string(), jobCounts),
  }),
  paused: z.string().nullable().describe('when background work was paused (POST /api/jobs/pause); null while it runs'),
  ingest: z
    .object({
      phases: z.array(
        z.object({
          phase: z.enum(['prepare', 'embed', 'analyze']),
          jobType: z.string(),
          remaining: z.number().describe("the organization's items with this phase queued or running"),
          ratePerSecond: z
            .number()
            .nullable()
            .describe('items per second of busy time, from the jobs finished in the last 10 minutes (null: none)'),
          etaSeconds: z.number().nullable().describe('remaining ÷ rate; 0 when none remain, null without a rate'),
        }),
      ),
      remaining: z.number().describe('items with some phase queued or running'),
      etaSeconds: z
        .number()
        .nullable()
        .describe('until all of them are analysed (null while a needed rate is unknown)'),
    })
    .describe("the ingest's progress for the caller's organization: per phase and overall"),
  jobs: z.array(
    z.object({
      id: z.number(),
      type: z.string(),
      phase: z.string(),
      status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']),
      mediaId: z.string(),
      mediaName: z.string(),
      processingStatus: z.string(),
      attempts: z.number(),
      maxAttempts: z.number(),
      priority: z.number(),
      lastError: z.string().nullable(),
      progress: z.unknown(),
      runAfter: z.string(),
      createdAt: z.string(),
      startedAt: z.string().nullable(),
      finishedAt: z.string().nullable(),
    }),
  ),
  pagination: z.object({ total: z.number(), limit: z.number(), offset: z.number(), hasMore: z.boolean() }),
});

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
    summary: 'Queue depth, ingest progress per phase with rates and ETA, running and failed jobs with reasons (admin)',
    query: z.object({
      status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']).optional(),
      limit: z.coerce.number().int().min(1).max(500).default(50),
      offset: z.coerce.number().int().min(0).default(0),
    }),
    responses: { 403: 'admin only' },
    response: jobsResponse,
    handle: async ({ services, principal, query }) => {
      const answer: z.input<typeof jobsResponse> = await listJobs(services, principal, query);
      return answer;
    },
  }),
];
