import { z } from 'zod';
import { defineRoute, queryBool } from '../../http/route.js';
import { placeQueryFields } from '../kernel/placeParams.js';
import { listCameras, listPlaces, mapPoints, MAP_MAX_POINTS } from './listings.js';

const datasetParams = z.object({ datasetId: z.string() });

const countryCount = z.object({ countryCode: z.string(), country: z.string(), count: z.number() });
const placeCount = z.object({
  city: z.string(),
  region: z.string().nullable(),
  country: z.string(),
  countryCode: z.string(),
  count: z.number(),
  latitude: z.number().describe('the mean position of its items, 5 decimals'),
  longitude: z.number(),
});

/** The map's filters: browse's, less paging, sorting and scoring. */
const mapQuery = z.object({
  path: z.string().optional().describe('ltree path of a folder; default the collection root'),
  recursive: queryBool.default(true).describe('false: only the folder level (default: every descendant)'),
  type: z.enum(['image', 'video', 'all']).default('all'),
  tags: z.string().optional().describe('comma-separated values; an item must carry all of them (any group)'),
  tagFilters: z.string().optional().describe('URL-encoded JSON {group: [values]}: AND between groups, OR within one'),
  favorite: queryBool.optional().describe('true: favourites only'),
  archived: z.enum(['exclude', 'include', 'only']).default('exclude'),
  ...placeQueryFields,
});

export const placeRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/places',
    tag: 'library',
    summary: 'Ours: countries and places of the collection with their item counts (live, not archived), most first',
    params: datasetParams,
    query: z.object({ country: z.string().optional().describe('ISO 3166-1 alpha-2: only the places of this country') }),
    response: z.object({ countries: z.array(countryCount), places: z.array(placeCount) }),
    responses: {
      400: 'a bad country code',
      403: 'no access',
      404: 'collection not found',
    },
    handle: ({ services, principal, params, query }) =>
      listPlaces(services, principal, params.datasetId, query.country),
  }),
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/cameras',
    tag: 'library',
    summary: 'Ours: cameras (make and model as the files name them) with their item counts, most first',
    params: datasetParams,
    response: z.object({
      cameras: z.array(z.object({ make: z.string().nullable(), model: z.string().nullable(), count: z.number() })),
    }),
    responses: {
      403: 'no access',
      404: 'collection not found',
    },
    handle: ({ services, principal, params }) => listCameras(services, principal, params.datasetId),
  }),
  defineRoute({
    method: 'get',
    path: '/api/dataset/:datasetId/map',
    tag: 'library',
    summary: `Ours: positions of every geotagged live item the filters let through, columnar (at most ${MAP_MAX_POINTS})`,
    params: datasetParams,
    query: mapQuery,
    response: z.object({
      total: z.number(),
      ids: z.array(z.string()),
      latitudes: z.array(z.number()).describe('degrees, 5 decimals, in the order of ids'),
      longitudes: z.array(z.number()),
    }),
    responses: {
      400: 'a bad filter',
      403: 'no access',
      404: 'collection or folder not found',
    },
    handle: ({ services, principal, params, query }) =>
      mapPoints(services, principal, params.datasetId, {
        ...query,
        limit: 1,
        offset: 0,
        sortBy: 'createdAt',
        sortDirection: 'desc',
        minScore: 0,
      }),
  }),
];
