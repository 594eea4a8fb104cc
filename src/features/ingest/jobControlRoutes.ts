import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { pauseJobs, retryFailedJobs, retryJob } from './jobControl.js';

const paused = z.object({ paused: z.string().nullable().describe('when background work was paused; null: running') });

/** Retrying and pausing the job queue (admin screens, /admin/jobs); the figures are GET /api/jobs. */
export const jobControlRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/jobs/retry-failed',
    tag: 'processing',
    summary: "Queue every failed job again, attempts reset (admin; the server's queue)",
    responses: { 403: 'admin only' },
    response: z.object({ queued: z.number() }),
    handle: ({ services, principal }) => retryFailedJobs(services, principal),
  }),
  defineRoute({
    method: 'post',
    path: '/api/jobs/pause',
    tag: 'processing',
    summary:
      "Pause background work (admin): running jobs finish, nothing else starts except a fresh upload's first phases",
    responses: { 403: 'admin only' },
    response: paused,
    handle: ({ services, principal }) => pauseJobs(services, principal, true),
  }),
  defineRoute({
    method: 'post',
    path: '/api/jobs/resume',
    tag: 'processing',
    summary: 'Resume background work (admin)',
    responses: { 403: 'admin only' },
    response: paused,
    handle: ({ services, principal }) => pauseJobs(services, principal, false),
  }),
  defineRoute({
    method: 'post',
    path: '/api/jobs/:jobId/retry',
    tag: 'processing',
    summary:
      "Queue a failed job of any type again, attempts reset (admin): the organization's items', collections' and " +
      "its own jobs, and the server's housekeeping",
    params: z.object({ jobId: z.string().max(20) }),
    responses: { 403: 'admin only', 404: 'no such job in the organization' },
    response: z.object({ id: z.number(), status: z.string(), retried: z.boolean() }),
    handle: ({ services, principal, params }) => retryJob(services, principal, params.jobId),
  }),
];
