import { z } from 'zod';
import { defineRoute, queryBool } from '../../../http/route.js';
import { searchByImage } from '../searchByImage.js';
import { browseQuery } from './browse.js';

export const searchByImageRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/dataset/:datasetId/media/search-by-image',
    tag: 'library',
    summary: 'Search by example: the items most like an image, with scores (the image is not stored)',
    description:
      '`image`: a base64 data URI (JPEG, PNG, WebP or GIF), or an image URL as the AI routes take. The other ' +
      'fields are the browse filters and paging of GET /api/dataset/{id}/media (path, recursive, type, dates, ' +
      'tags, tagFilters, sortBy, limit, offset, minScore); the answer is its scored mode: `{media, pagination}`, ' +
      'each item with `_score` and `_matchingFrames`, best first.',
    params: z.object({ datasetId: z.string() }),
    body: browseQuery
      .omit({ q: true, similarToObjectId: true, similarToObjectModel: true, mediaId: true, clusterId: true })
      .extend({
        image: z.string().min(1, 'image is required'),
        recursive: z.union([z.boolean(), queryBool]).default(false),
      })
      .strict(),
    responses: {
      400: 'no image, a malformed data URI or a bad filter',
      403: 'no access to the collection',
      404: 'collection or folder not found',
      413: 'body too large',
      422: 'the image could not be decoded',
    },
    handle: ({ services, principal, params, body, ctx }) =>
      searchByImage(services, principal, params.datasetId, {
        ...body,
        sortExplicit: (ctx.request.body as { sortBy?: unknown } | undefined)?.sortBy !== undefined,
      }),
  }),
];
