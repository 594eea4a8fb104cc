import { z } from 'zod';
import { createFolder, deleteFolder, getFolder, updateFolder } from '../folders.js';
import { FOLDERS_MAX_LIMIT, listFolders } from '../folderTree.js';
import { defineRoute } from '../../../http/route.js';
import { renameOrReplaceBody } from './schemas.js';

const folderParams = z.object({ folderId: z.string() });

export const folderRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/folders',
    tag: 'folders',
    summary:
      'One level of the folder tree: child folders of path with childCount, folderCount, itemCount; ancestors for breadcrumbs',
    params: z.object({ datasetId: z.string() }),
    query: z.object({
      path: z.string().optional().describe('ltree path of the folder whose subfolders to list; default the root'),
      limit: z.coerce.number().int().min(1).max(FOLDERS_MAX_LIMIT).default(500),
      offset: z.coerce.number().int().min(0).default(0),
    }),
    responses: { 400: 'invalid path or paging', 403: 'no access', 404: 'collection or folder not found' },
    handle: ({ services, principal, params, query }) => listFolders(services, principal, params.datasetId, query),
  }),
  defineRoute({
    method: 'post',
    path: '/api/folder',
    tag: 'folders',
    summary: 'Create a folder (admin or owner)',
    body: z.object({
      datasetId: z.string().min(1, 'datasetId is required'),
      name: z.string().max(255),
      path: z.string().optional(),
      reuse: z.boolean().optional(),
    }),
    responses: { 400: 'missing datasetId or name', 403: 'role too low', 404: 'collection or parent folder not found' },
    handle: async ({ services, principal, body: { datasetId, ...folder } }) => ({
      folder: await createFolder(services, principal, { ...folder, collectionId: datasetId }),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/folder/:folderId',
    tag: 'folders',
    summary: 'One folder',
    params: folderParams,
    responses: { 404: 'not found' },
    handle: async ({ services, principal, params }) => ({
      folder: await getFolder(services, principal, params.folderId),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/folder/:folderId',
    tag: 'folders',
    summary: 'Rename a folder or replace its metadata',
    params: folderParams,
    body: renameOrReplaceBody(255),
    responses: { 400: 'neither name nor metadata', 404: 'not found' },
    handle: async ({ services, principal, params, body }) => ({
      folder: await updateFolder(services, principal, params.folderId, body),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/folder/:folderId',
    tag: 'folders',
    summary: 'Soft-delete a folder and everything beneath it',
    params: folderParams,
    responses: { 404: 'not found' },
    handle: ({ services, principal, params }) => deleteFolder(services, principal, params.folderId),
  }),
];
