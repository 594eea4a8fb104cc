import { z } from 'zod';
import { deleteMedia, deleteVersion, getMedia, listVersions, moveMedia, selectVersion, updateMedia } from '../media.js';
import { presentOne } from '../../kernel/present.js';
import { mediaObjectSchema } from '../../kernel/presentCapture.js';
import { addTag, removeTag, renameTagGroup } from '../tags.js';
import { defineRoute } from '../../../http/route.js';
import { itemPatchBody } from './schemas.js';

const mediaParams = z.object({ mediaId: z.string() });

export const mediaRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/media/:mediaId',
    tag: 'library',
    summary: 'One item with its frames, captions and objects',
    params: mediaParams,
    response: z.object({ media: mediaObjectSchema }),
    responses: { 404: 'not found' },
    handle: async ({ services, principal, params }) => ({ media: await getMedia(services, principal, params.mediaId) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/media/:mediaId',
    tag: 'library',
    summary: 'Rename and/or replace the whole metadata document (also renames folders); ours: favourite, archived',
    params: mediaParams,
    body: itemPatchBody(1024),
    responses: { 400: 'neither name, metadata nor a flag', 403: 'role too low', 404: 'not found' },
    handle: async ({ services, principal, params, body }) => ({
      media: await presentOne(services, await updateMedia(services, principal, params.mediaId, body)),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/media/:mediaId',
    tag: 'library',
    summary: 'Soft-delete an item with all its versions (a folder with everything beneath)',
    params: mediaParams,
    responses: { 404: 'not found' },
    handle: ({ services, principal, params }) => deleteMedia(services, principal, params.mediaId),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/media/:mediaId/move',
    tag: 'library',
    summary: 'Move an item or a folder subtree to another folder',
    params: mediaParams,
    body: z.object({ destinationPath: z.string().min(1, 'destinationPath is required') }),
    responses: { 400: 'missing or invalid destination', 403: 'role too low', 404: 'not found' },
    handle: ({ services, principal, params, body }) =>
      moveMedia(services, principal, params.mediaId, body.destinationPath),
  }),
  defineRoute({
    method: 'post',
    path: '/api/media/:mediaId/tags',
    tag: 'tags',
    summary: 'Add a value to a tag group',
    params: mediaParams,
    body: z.object({ label: z.string().max(200), value: z.string().max(500) }),
    responses: { 409: 'value already on the item', 404: 'not found' },
    handle: async ({ services, principal, params, body }) => ({
      media: await presentOne(services, await addTag(services, principal, params.mediaId, body.label, body.value)),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/media/:mediaId/tags',
    tag: 'tags',
    summary: 'Remove a value (the group goes with its last value), or the whole group when value is absent',
    params: mediaParams,
    body: z.object({ label: z.string().max(200), value: z.string().max(500).optional() }),
    responses: { 404: 'not found, or tag not on the item' },
    handle: async ({ services, principal, params, body }) => {
      const media = await presentOne(
        services,
        await removeTag(services, principal, params.mediaId, body.label, body.value),
      );
      // The spec answers "the updated media object"; clients also read `media`. Both are here.
      return { ...media, media };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/media/:mediaId/tags',
    tag: 'tags',
    summary: 'Rename a tag group on the item (values merge)',
    params: mediaParams,
    body: z.object({ oldLabel: z.string().max(200), newLabel: z.string().max(200) }),
    responses: { 404: 'not found, or group not on the item' },
    handle: async ({ services, principal, params, body }) => ({
      media: await presentOne(
        services,
        await renameTagGroup(services, principal, params.mediaId, body.oldLabel, body.newLabel),
      ),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/media/:mediaId/versions',
    tag: 'versions',
    summary: 'The original and every derived version',
    params: mediaParams,
    responses: { 404: 'not found' },
    handle: async ({ services, principal, params }) => ({
      versions: await listVersions(services, principal, params.mediaId),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/media/:mediaId/versions',
    tag: 'versions',
    summary: 'Delete one version; the newest remaining becomes current',
    params: mediaParams,
    query: z.object({ versionId: z.string() }),
    responses: { 404: 'not found' },
    handle: ({ services, principal, params, query }) =>
      deleteVersion(services, principal, params.mediaId, query.versionId),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/media/:mediaId/select-version',
    tag: 'versions',
    summary: 'Make this version the current one',
    params: mediaParams,
    responses: { 404: 'not found' },
    handle: async ({ services, principal, params }) => ({
      media: await selectVersion(services, principal, params.mediaId),
    }),
  }),
];
