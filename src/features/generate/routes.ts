import { z } from 'zod';
import { generate, generationStatus } from './generate.js';
import { errorName } from '../../http/errorMiddleware.js';
import { defineRoute } from '../../http/route.js';

/** `Prefer: respond-async` (RFC 7240), possibly among other preferences. */
const prefersAsync = (header: string | undefined) =>
  !!header && header.split(',').some((p) => p.trim().toLowerCase().split(/[;=]/)[0].trim() === 'respond-async');

export const generateRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/ai/generate',
    tag: 'ai',
    summary:
      'Text to image with the local model (Janus-Pro-1B). `Prefer: respond-async` → 202 {jobId, statusUrl}; otherwise waits ' +
      '(up to GENERATE_SYNC_TIMEOUT_SECONDS, then 202). Reference images (`referenceImages`, or compat `image`) guide the colours.',
    body: z.object({
      prompt: z.string().max(2000),
      referenceImages: z.array(z.string()).max(4).optional(),
      image: z
        .union([z.array(z.string()).max(4), z.string()])
        .optional()
        .describe('compat.md name of referenceImages'),
      aspectRatio: z
        .string()
        .max(40)
        .optional()
        .describe('1:1, 16:9, 9:16, 4:3, 3:4, 2:3, 3:2, 4:5, 5:4, 21:9, or match_input_image'),
      model: z
        .string()
        .max(200)
        .optional()
        .describe(
          'a local generation model; hosted names (flux-kontext-max, google/nano-banana…) map to the local default',
        ),
      seed: z
        .number()
        .int()
        .min(0)
        .max(2 ** 32 - 1)
        .optional()
        .describe('sampling seed (default: derived from the prompt)'),
    }),
    responses: {
      202: 'accepted: {jobId, status, statusUrl}',
      400: 'empty prompt, bad aspectRatio, bad reference image URL',
      422: 'a reference image could not be decoded',
      429: 'generation queue full (Retry-After)',
      503: 'generation model not installed',
    },
    handle: async ({ services, principal, body, ctx }) => {
      // A synchronous generation can take minutes on a CPU: keep the socket open past the wait.
      ctx.req.setTimeout((services.config.generateSyncTimeoutSeconds + 60) * 1000);
      const refs =
        body.referenceImages ??
        (body.image === undefined ? undefined : Array.isArray(body.image) ? body.image : [body.image]);
      const out = await generate(
        services,
        principal,
        { ...body, referenceImages: refs },
        { async: prefersAsync(ctx.get('prefer')) },
      );
      if (out.kind === 'done') return out.answer;
      ctx.status = 202;
      ctx.set('Location', out.accepted.statusUrl);
      if (prefersAsync(ctx.get('prefer'))) ctx.set('Preference-Applied', 'respond-async');
      return out.accepted;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/ai/jobs/:id',
    tag: 'ai',
    summary: 'Progress of a generation job (0..1) and, once succeeded, the same answer as a synchronous generate',
    params: z.object({ id: z.string() }),
    responses: { 404: 'no such job in your organization' },
    handle: async ({ services, principal, params }) => {
      const view = await generationStatus(services, principal, params.id);
      if (!view.error) return view;
      return { ...view, error: { error: errorName(view.error.code), message: view.error.message } };
    },
  }),
];
