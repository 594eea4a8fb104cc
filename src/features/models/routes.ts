import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { invalid } from '../../platform/errors.js';
import { fetchModel } from './fetchModel.js';
import { importModelBundle } from './importBundle.js';
import { listModels } from './listModels.js';

export const modelRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/models',
    tag: 'models',
    summary:
      'Every catalog model: state (installed, downloading, queued, missing, failed), bytes done and total, ' +
      "licence, size, the roles it serves, the last error and `waiting` (the organization's items whose analysis " +
      'stages wait for it: `items`, and `stages` name → items); and the background download (admin)',
    responses: { 403: 'admin only' },
    handle: ({ services, principal }) => listModels(services, principal),
  }),
  defineRoute({
    method: 'post',
    path: '/api/models/:name/fetch',
    tag: 'models',
    summary: "Start or retry one model's download in the background (admin); progress in GET /api/models",
    params: z.object({ name: z.string().max(200) }),
    responses: {
      403: 'admin only',
      404: 'no such model',
      409: 'downloads are off (offline)',
      422: 'nothing to fetch it from',
    },
    response: z.object({ name: z.string(), state: z.enum(['queued', 'installed']) }),
    handle: ({ services, principal, params }) => fetchModel(services, principal, params.name),
  }),
  defineRoute({
    method: 'post',
    path: '/api/models/import',
    tag: 'models',
    summary:
      'Import a model bundle (multipart field "file": the tar `npm run models -- pack` writes), verified as ' +
      '`npm run models -- import` does; items waiting for its models catch up (admin)',
    bodyType: 'large-multipart',
    body: z.object({}).passthrough(),
    responses: {
      400: 'no file',
      403: 'admin only',
      409: 'another import is under way',
      413: 'larger than MAX_MODEL_BUNDLE_BYTES (default 64 GiB; not MAX_UPLOAD_BYTES), named in the message',
      422: 'the bundle is refused (truncated, a checksum, an unknown model): nothing installed',
    },
    handle: async ({ services, principal, ctx }) => {
      const files = Object.values(ctx.request.files ?? {}).flat() as unknown as Array<{ filepath: string }>;
      if (!files[0]) throw invalid('file is required (multipart field "file": the bundle .tar)');
      return importModelBundle(services, principal, files[0].filepath);
    },
  }),
];
