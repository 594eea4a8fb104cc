import { z } from 'zod';
import { describe } from './describe.js';
import { embedImage, embedText, looksLikeImage } from './embeddings.js';
import { classify, tagFree, tagWithPrompt } from './tag.js';
import { invalid } from '../../platform/errors.js';
import { defineRoute } from '../../http/route.js';

const image = z
  .string()
  .min(1, 'image is required')
  .describe('https/http URL, a data URI, or a file URL of this server');
const aiErrors = {
  400: 'missing or invalid field, unknown model, or an image URL on a private address',
  413: 'image too large',
  422: 'not a decodable image, or a format this endpoint does not take',
  429: 'inference queue full; retry after Retry-After seconds',
  503: 'model not installed',
};

export const aiRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/ai/describe',
    tag: 'ai',
    summary: 'Describe an image (local captioner; a prompt-following model when installed)',
    body: z.object({ image, prompt: z.string().max(2000).optional() }),
    responses: aiErrors,
    handle: ({ services, body }) => describe(services, body),
  }),
  defineRoute({
    method: 'post',
    path: '/api/ai/tag',
    tag: 'ai',
    summary:
      'Tag or classify an image. Shape 2 when `options` or `multiple` is present, else shape 1 (`choices` → classification)',
    body: z.object({
      image,
      prompt: z.string().max(2000).optional(),
      choices: z.array(z.string().max(200)).optional(),
      single: z.boolean().optional(),
      options: z.array(z.string().max(200)).optional(),
      multiple: z.boolean().optional(),
    }),
    responses: aiErrors,
    handle: ({ services, body }) => {
      if (body.options !== undefined || body.multiple !== undefined) {
        if (!body.prompt?.trim()) throw invalid('prompt is required when options or multiple is given (shape 2)');
        return tagWithPrompt(services, {
          image: body.image,
          prompt: body.prompt,
          options: body.options,
          multiple: body.multiple,
        });
      }
      if (body.choices !== undefined)
        return classify(services, { image: body.image, choices: body.choices, single: body.single });
      return tagFree(services, body);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/ai/embeddings',
    tag: 'ai',
    summary: 'Embed an image (shape 1: image, model) or an image or text (shape 2: input, type)',
    body: z.object({
      image: z.string().optional(),
      model: z.string().max(200).optional(),
      input: z.string().optional(),
      type: z.enum(['image', 'text']).optional(),
    }),
    responses: aiErrors,
    handle: async ({ services, body }) => {
      if (body.input !== undefined) {
        if (!body.input.trim()) throw invalid('input must not be empty');
        const kind = body.type ?? (looksLikeImage(body.input) ? 'image' : 'text');
        return kind === 'image'
          ? embedImage(services, { image: body.input, model: body.model })
          : embedText(services, { text: body.input, model: body.model });
      }
      if (body.image === undefined) throw invalid('image is required (or input, for shape 2)');
      return embedImage(services, { image: body.image, model: body.model });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/ai/embed',
    tag: 'ai',
    summary: 'Embed an image or a text (compat: {image} or {text}) → {embedding}',
    body: z.object({
      image: z.string().optional(),
      text: z.string().optional(),
      model: z.string().max(200).optional(),
    }),
    responses: aiErrors,
    handle: async ({ services, body }) => {
      if (body.image !== undefined) return embedImage(services, { image: body.image, model: body.model });
      if (body.text !== undefined) return embedText(services, { text: body.text, model: body.model });
      throw invalid('image or text is required');
    },
  }),
];
