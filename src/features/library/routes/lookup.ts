import { z } from 'zod';
import { defineRoute } from '../../../http/route.js';
import { LOOKUP_MAX_HASHES, lookupContent } from '../lookup.js';

export const lookupRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/dataset/:datasetId/media/lookup',
    tag: 'library',
    summary:
      'Which of these content hashes (sha256 of the file) the collection already holds as items (ours; importers skip them)',
    params: z.object({ datasetId: z.string() }),
    body: z.object({
      sha256: z
        .array(z.string())
        .max(LOOKUP_MAX_HASHES, `at most ${LOOKUP_MAX_HASHES} hashes`)
        .describe('sha256 hex digests of whole files'),
    }),
    responses: { 400: 'not a list of sha256 digests, or too many', 403: 'no access', 404: 'collection not found' },
    handle: ({ services, principal, params, body }) =>
      lookupContent(services, principal, params.datasetId, body.sha256),
  }),
];
