import { z } from 'zod';
import { addCaption, deleteObject, relabelObject } from '../corrections.js';
import { defineRoute } from '../../../http/route.js';

const objectParams = z.object({ objectId: z.string() });

export const correctionRoutes = [
  defineRoute({
    method: 'patch',
    path: '/api/objects/:objectId',
    tag: 'corrections',
    summary: "Correct a detected object's label (it becomes yours: reprocessing keeps it)",
    params: objectParams,
    body: z.object({ label: z.string().max(500) }),
    responses: { 404: 'not found' },
    handle: async ({ services, principal, params, body }) => ({
      object: await relabelObject(services, principal, params.objectId, body.label),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/objects/:objectId',
    tag: 'corrections',
    summary: 'Delete a detected object (reprocessing does not bring it back)',
    params: objectParams,
    responses: { 404: 'not found' },
    handle: ({ services, principal, params }) => deleteObject(services, principal, params.objectId),
  }),
  defineRoute({
    method: 'post',
    path: '/api/frames/:frameId/captions',
    tag: 'corrections',
    summary: 'Write your own caption for a frame (kept by reprocessing)',
    params: z.object({ frameId: z.string() }),
    body: z.object({ text: z.string().max(5000) }),
    responses: { 404: 'not found' },
    handle: async ({ services, principal, params, body }) => ({
      frame: await addCaption(services, principal, params.frameId, body.text),
    }),
  }),
];
