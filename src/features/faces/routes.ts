/** The People routes: a person's edits of face clusters (people.ts) and the merge suggestions (suggestions.ts). */
import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { getPerson, listFaces, MAX_PEOPLE_IDS, mergePeople, moveFaces, updatePerson } from './people.js';
import { dismissSuggestion, suggestPeople } from './suggestions.js';

const clusterParams = z.object({ clusterId: z.string() });
const ids = (what: string) => z.array(z.string().max(64)).min(1).max(MAX_PEOPLE_IDS).describe(what);
const notFound = 'no such person in your organization';

export const peopleRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/clusters/suggestions',
    tag: 'people',
    summary: 'Pairs of people who may be the same person (their face clusters’ centres alike), best first',
    params: z.object({ datasetId: z.string() }),
    query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
    responses: { 403: 'no access', 404: 'collection not found' },
    handle: ({ services, principal, params, query }) => suggestPeople(services, principal, params.datasetId, query),
  }),
  defineRoute({
    method: 'post',
    path: '/api/clusters/:clusterId/not-same-person',
    tag: 'people',
    summary: 'Dismiss a suggestion: this person and another are not the same person (the pair is not suggested again)',
    params: clusterParams,
    body: z.object({ clusterId: z.string().max(64).describe('the other person (same collection)') }),
    responses: { 400: 'the same person twice', 403: 'viewer', 404: notFound },
    handle: ({ services, principal, params, body }) =>
      dismissSuggestion(services, principal, params.clusterId, body.clusterId),
  }),
  defineRoute({
    method: 'get',
    path: '/api/clusters/:clusterId',
    tag: 'people',
    summary: 'One person (face cluster): name, face count, items, cover face',
    params: clusterParams,
    responses: { 404: notFound },
    handle: ({ services, principal, params }) => getPerson(services, principal, params.clusterId),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/clusters/:clusterId',
    tag: 'people',
    summary: 'Name a person (null or "" clears; searchable with q), hide or show them, choose their cover face',
    params: clusterParams,
    body: z.object({
      name: z.string().max(200).nullable().optional(),
      hidden: z.boolean().optional(),
      coverObjectId: z.string().max(64).nullable().optional().describe('one of the person’s faces; null: automatic'),
    }),
    responses: { 400: 'nothing to change, name too long, or a cover face not theirs', 403: 'viewer', 404: notFound },
    handle: ({ services, principal, params, body }) => updatePerson(services, principal, params.clusterId, body),
  }),
  defineRoute({
    method: 'post',
    path: '/api/clusters/:clusterId/merge',
    tag: 'people',
    summary: 'Merge other people into this one: their faces and items join it; it keeps its name (or takes theirs)',
    params: clusterParams,
    body: z.object({ clusterIds: ids('the people to merge into this one (same collection)') }),
    responses: { 400: 'none named, or another face model', 403: 'viewer', 404: notFound },
    handle: ({ services, principal, params, body }) =>
      mergePeople(services, principal, params.clusterId, body.clusterIds),
  }),
  defineRoute({
    method: 'get',
    path: '/api/clusters/:clusterId/faces',
    tag: 'people',
    summary: 'A person’s faces (crops), most typical first',
    params: clusterParams,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(500).default(100),
      offset: z.coerce.number().int().min(0).default(0),
    }),
    responses: { 404: notFound },
    handle: ({ services, principal, params, query }) => listFaces(services, principal, params.clusterId, query),
  }),
  defineRoute({
    method: 'post',
    path: '/api/clusters/:clusterId/faces/move',
    tag: 'people',
    summary: 'Move faces out of this person: into another person (to), or a new one (to: null, "not this person")',
    description:
      'The faces stay where they are put: the background clustering never moves them back, and never merges the ' +
      'two people again on its own.',
    params: clusterParams,
    body: z.object({
      objectIds: ids('faces of this person'),
      to: z.string().max(64).nullable().describe('the person to move them to; null: a new person'),
    }),
    responses: { 400: 'a face not theirs, or another face model', 403: 'viewer', 404: notFound },
    handle: ({ services, principal, params, body }) => moveFaces(services, principal, params.clusterId, body),
  }),
];
