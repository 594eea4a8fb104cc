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
  types: z
    .array(
      jobCounts.extend({
        type: z.string(),
        ratePerSecond: z
          .number()
          .nullable()
          .describe("jobs per second of busy time, from this type's jobs finished in the last 10 minutes"),
        etaSeconds: z
          .number()
          .nullable()
          .describe('(queued + running) ÷ rate; 0 when none is left, null without a rate'),
      }),
    )
    .describe("every job type in the server's queue (ingest phases, web-video, trash-purge, generate, …) by name"),
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
      phase: z.string().describe("an ingest job's phase (prepare, embed, analyze); any other job's type"),
      status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']),
      scope: z
        .object({
          kind: z.enum(['item', 'collection', 'organization', 'server']),
          id: z.string().nullable(),
          name: z.string().nullable(),
          processingStatus: z.string().nullable(),
        })
        .describe("what the job works on: an item, a collection, the organization, or the server's housekeeping"),
      mediaId: z.string().nullable().describe("an item's job: the item (null for the others)"),
      mediaName: z.string().nullable(),
      processingStatus: z.string().nullable(),
      attempts: z.number(),
      maxAttempts: z.number(),
      priority: z.number(),
      lastError: z.string().nullable(),
      progress: z.unknown(),
      figures: z
        .object({
          done: z.number(),
          total: z.number(),
          ratePerSecond: z.number().nullable().describe('units per second since the attempt started'),
          etaSeconds: z.number().nullable(),
        })
        .nullable()
        .describe('a running job whose progress says how far of how much: how fast and how long still'),
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
    summary:
      'Queue depth per job type with rates and ETA, ingest progress per phase, the jobs of every type: running with ' +
      'progress, failed with reasons (admin)',
    query: z.object({
      status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']).optional(),
      type: z.string().max(100).optional().describe('only jobs of this type'),
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
