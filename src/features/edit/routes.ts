import { z } from 'zod';
import { ASPECT_RATIOS, editImage } from './edit.js';
import { saveOutputAsVersion } from './version.js';
import { defineRoute } from '../../http/route.js';

export const editRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/ai/edit',
    tag: 'ai',
    summary:
      'Edit an image from a plain-language instruction with local operations (rotate, crop, grades, background, upscale …). ' +
      "Shape 2 when aspectRatio, outputFormat or model is present, else shape 1; the answer carries both shapes' fields and `result`",
    body: z.object({
      image: z
        .string()
        .min(1, 'image is required')
        .describe('https/http URL, a data URI, or a file URL of this server'),
      prompt: z.string().trim().min(1, 'prompt is required').max(2000),
      output_format: z.enum(['jpg', 'jpeg', 'png', 'webp']).optional().describe('shape 1; default jpg'),
      quality: z.number().min(1).max(100).optional().describe('shape 1: 1 to 100, default 90 (jpg and webp)'),
      aspectRatio: z.enum(ASPECT_RATIOS).optional().describe('shape 2; match_input_image keeps the shape'),
      outputFormat: z.enum(['jpg', 'jpeg', 'png']).optional().describe('shape 2; default jpg'),
      model: z
        .string()
        .max(200)
        .optional()
        .describe('shape 2: hosted model names run on the local editor; the answer says which ran'),
      saveAsVersion: z
        .boolean()
        .optional()
        .describe('ours: store the result as a new version of the library item whose file URL is image'),
    }),
    responses: {
      400: 'missing or invalid field (quality out of 1..100, unknown format or aspect ratio), or saveAsVersion without a library file URL',
      404: 'saveAsVersion: no item of your organization has this file',
      413: 'image too large',
      422: 'the prompt asks for something the local editor cannot do (the message lists what it can), or the image cannot be decoded',
      429: 'inference queue full; retry after Retry-After seconds',
      503: 'a model the edit needs is not installed (background: modnet)',
    },
    handle: ({ services, principal, body }) =>
      editImage(services, principal, {
        ...body,
        output_format: body.output_format === 'jpeg' ? 'jpg' : body.output_format,
        outputFormat: body.outputFormat === 'jpeg' ? 'jpg' : body.outputFormat,
      }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/media/:mediaId/versions',
    tag: 'versions',
    summary:
      'Save an edited image (the edited_image / url of POST /api/ai/edit, after one or several edits) as the ' +
      "item's new current version → {media: the new version}",
    params: z.object({ mediaId: z.string() }),
    body: z.object({
      image: z.string().min(1, 'image is required').max(4000).describe("an output URL of this server's edits"),
    }),
    responses: {
      400: 'image is not an edited image of this server, or the item is not an image',
      403: 'viewers cannot add versions',
      404: 'no such item in your organization',
      422: 'the edited image is no longer kept',
    },
    handle: async ({ services, principal, params, body }) => ({
      media: await saveOutputAsVersion(services, principal, params.mediaId, body.image),
    }),
  }),
];
