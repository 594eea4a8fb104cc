import { z } from 'zod';
import { defineRoute } from '../../../http/route.js';
import {
  ALBUM_BATCH_MAX,
  albumMedia,
  changeAlbumItems,
  createAlbum,
  deleteAlbum,
  listAlbums,
  updateAlbum,
} from '../albums.js';

const datasetParams = z.object({ datasetId: z.string() });
const albumParams = z.object({ albumId: z.string() });
const mediaIds = z.array(z.string().max(64)).max(ALBUM_BATCH_MAX);
const itemsBody = z.object({ mediaIds: mediaIds.min(1) }).strict();
const page = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

const album = z.object({
  id: z.string(),
  datasetId: z.string(),
  name: z.string(),
  coverMediaId: z.string().nullable(),
  itemCount: z.number(),
  createdById: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const changed = z.object({ changed: z.number(), album });

/** Albums: named, ordered sets of items from anywhere in a collection (folders stay the filing structure). */
export const albumRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/dataset/:datasetId/albums',
    tag: 'albums',
    summary: 'Create an album, optionally with its first items (in order)',
    params: datasetParams,
    body: z.object({ name: z.string().max(200), mediaIds: mediaIds.optional() }).strict(),
    response: album,
    responses: {
      400: 'invalid name or too many ids',
      403: 'role too low or no access',
      404: 'collection or item not found',
    },
    handle: ({ services, principal, params, body }) => createAlbum(services, principal, params.datasetId, body),
  }),
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/albums',
    tag: 'albums',
    summary: "The collection's albums, most recently changed first",
    params: datasetParams,
    response: z.object({ albums: z.array(album) }),
    responses: { 403: 'no access', 404: 'collection not found' },
    handle: ({ services, principal, params }) => listAlbums(services, principal, params.datasetId),
  }),
  defineRoute({
    method: 'get',
    path: '/api/albums/:albumId/media',
    tag: 'albums',
    summary: "An album and its live items in the album's order, one page",
    description: 'Deleted items drop out. To search or filter an album, browse its collection with albumId.',
    params: albumParams,
    query: page,
    responses: { 404: 'album not found' },
    handle: ({ services, principal, params, query }) => albumMedia(services, principal, params.albumId, query),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/albums/:albumId',
    tag: 'albums',
    summary: 'Rename an album or set its cover (an item of the album; null: the first item)',
    params: albumParams,
    body: z
      .object({ name: z.string().max(200).optional(), coverMediaId: z.string().max(64).nullable().optional() })
      .strict(),
    response: album,
    responses: { 400: 'invalid name, or the cover is not in the album', 403: 'role too low', 404: 'album not found' },
    handle: ({ services, principal, params, body }) => updateAlbum(services, principal, params.albumId, body),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/albums/:albumId',
    tag: 'albums',
    summary: 'Delete an album (its items stay where they are)',
    params: albumParams,
    responses: { 403: 'role too low', 404: 'album not found' },
    handle: ({ services, principal, params }) => deleteAlbum(services, principal, params.albumId),
  }),
  defineRoute({
    method: 'post',
    path: '/api/albums/:albumId/items',
    tag: 'albums',
    summary: 'Add items to the end of an album (ids already in it are skipped)',
    params: albumParams,
    body: itemsBody,
    response: changed,
    responses: { 403: 'role too low', 404: 'album or item not found (an item of another collection too)' },
    handle: ({ services, principal, params, body }) =>
      changeAlbumItems(services, principal, params.albumId, 'add', body.mediaIds),
  }),
  defineRoute({
    method: 'post',
    path: '/api/albums/:albumId/items/remove',
    tag: 'albums',
    summary: 'Take items out of an album',
    params: albumParams,
    body: itemsBody,
    response: changed,
    responses: { 403: 'role too low', 404: 'album not found' },
    handle: ({ services, principal, params, body }) =>
      changeAlbumItems(services, principal, params.albumId, 'remove', body.mediaIds),
  }),
  defineRoute({
    method: 'put',
    path: '/api/albums/:albumId/order',
    tag: 'albums',
    summary: 'Reorder an album: the named items first, in this order; the others follow in their order',
    params: albumParams,
    body: itemsBody,
    response: changed,
    responses: { 403: 'role too low', 404: 'album not found' },
    handle: ({ services, principal, params, body }) =>
      changeAlbumItems(services, principal, params.albumId, 'reorder', body.mediaIds),
  }),
];
