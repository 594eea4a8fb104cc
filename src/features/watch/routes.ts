import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { addWatch, checkWatchInput, listWatches, removeWatch } from './folders.js';

const datasetParams = z.object({ datasetId: z.string() });

export const watchRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/watched-folders',
    tag: 'watched folders',
    summary: "The collection's watched folders (ours; admin)",
    params: datasetParams,
    responses: { 403: 'no access or role too low', 404: 'collection not found' },
    handle: async ({ services, principal, params }) => ({
      watchedFolders: await listWatches(services, principal, params.datasetId),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/dataset/:datasetId/watched-folders',
    tag: 'watched folders',
    summary:
      "Watch a folder on the server's disk (ours; admin): its files are imported by themselves, folders kept. " +
      'Only under the WATCH_ROOTS the operator allows',
    params: datasetParams,
    body: z.object({
      path: z.string().min(1).max(4096).describe('absolute path of a folder on the server'),
      into: z.string().max(4096).optional().describe('folder names inside the collection, e.g. "Inbox/Phone"'),
      mirrorDeletions: z.boolean().optional().describe('deleting a watched file deletes the item it made'),
    }),
    responses: {
      400: 'not an absolute path to a folder',
      403: 'no access, role too low, or outside WATCH_ROOTS (none set: every path)',
      404: 'collection not found',
      409: 'the collection already watches that folder',
    },
    handle: async ({ services, principal, params, body }) => {
      checkWatchInput(body);
      return { watchedFolder: await addWatch(services, principal, params.datasetId, body) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/dataset/:datasetId/watched-folders/:watchId',
    tag: 'watched folders',
    summary: 'Stop watching a folder (ours; admin); the items it imported stay',
    params: z.object({ datasetId: z.string(), watchId: z.string() }),
    responses: { 403: 'no access', 404: 'not found', 409: 'set by WATCH_DIRS' },
    handle: ({ services, principal, params }) => removeWatch(services, principal, params.datasetId, params.watchId),
  }),
];
