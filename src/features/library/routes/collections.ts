import { z } from 'zod';
import { createCollection, getCollection, listCollections, updateCollection } from '../collections.js';
import { defineRoute } from '../../../http/route.js';

const orgParams = z.object({ orgId: z.string() });
const datasetParams = z.object({ datasetId: z.string() });

export const collectionRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/organization/:orgId/datasets',
    tag: 'collections',
    summary: "List the organization's collections",
    params: orgParams,
    responses: { 403: 'no access', 404: 'organization not found' },
    handle: async ({ services, principal, params }) => ({
      datasets: await listCollections(services, principal, params.orgId),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/organization/:orgId/datasets',
    tag: 'collections',
    summary: 'Create a collection (admin)',
    params: orgParams,
    body: z.object({ name: z.string().min(1).max(200), icon: z.string().max(200).nullable().optional() }),
    responses: { 403: 'no access or role too low', 404: 'organization not found' },
    handle: async ({ services, principal, params, body }) => ({
      dataset: await createCollection(services, principal, params.orgId, body),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId',
    tag: 'collections',
    summary: 'One collection',
    params: datasetParams,
    responses: { 403: 'no access', 404: 'collection not found' },
    handle: async ({ services, principal, params }) => ({
      dataset: await getCollection(services, principal, params.datasetId),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/dataset/:datasetId',
    tag: 'collections',
    summary: 'Rename a collection or change its icon (admin)',
    params: datasetParams,
    body: z.object({ name: z.string().max(200).optional(), icon: z.string().max(200).nullable().optional() }),
    responses: { 403: 'no access', 404: 'collection not found' },
    handle: async ({ services, principal, params, body }) => ({
      dataset: await updateCollection(services, principal, params.datasetId, body),
    }),
  }),
];
