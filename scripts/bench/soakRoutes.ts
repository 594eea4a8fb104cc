/**
 * The soak bench's fixed mix of plain requests (autocannon): each route with its rate and connections under
 * load. Items and offsets are picked at random per request from the seeded collection.
 */
import type autocannon from 'autocannon';
import type { RouteLoad } from './soakLoad.js';

const WORDS = ['red', 'dog', 'beach', 'car', 'sunset', 'street', 'mountain', 'child'];

export function soakRoutes(datasetId: string, mediaIds: string[], seeded: number): RouteLoad[] {
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  let edits = 0;
  const tagBody = (ctx: Record<string, unknown>) => JSON.stringify({ label: 'soak', value: ctx.value });
  const add: autocannon.Request = {
    method: 'POST',
    setupRequest: (req, context) => {
      const ctx = context as Record<string, unknown>;
      ctx.id = pick(mediaIds);
      ctx.value = `v${++edits}`;
      return { ...req, path: `/api/media/${ctx.id}/tags`, body: tagBody(ctx) };
    },
  };
  const remove: autocannon.Request = {
    method: 'DELETE',
    setupRequest: (req, context) => {
      const ctx = context as Record<string, unknown>;
      return { ...req, path: `/api/media/${ctx.id}/tags`, body: tagBody(ctx) };
    },
  };
  const get = (path: () => string): autocannon.Request => ({
    method: 'GET',
    setupRequest: (req) => ({ ...req, path: path() }),
  });
  return [
    {
      id: 'browse',
      label: 'browse a page (GET /api/dataset/{id}/media, 50 items)',
      requests: [get(() => `/api/dataset/${datasetId}/media?limit=50&offset=${Math.floor(Math.random() * seeded)}`)],
      rate: 20,
      connections: 8,
    },
    {
      id: 'search',
      label: 'search (GET /api/dataset/{id}/media?q=…)',
      requests: [get(() => `/api/dataset/${datasetId}/media?limit=50&q=${pick(WORDS)}`)],
      rate: 4,
      connections: 4,
    },
    {
      id: 'item',
      label: 'open an item (GET /api/media/{id})',
      requests: [get(() => `/api/media/${pick(mediaIds)}`)],
      rate: 20,
      connections: 4,
    },
    {
      id: 'tags',
      label: 'tag edit (POST then DELETE /api/media/{id}/tags)',
      requests: [add, remove],
      rate: 10,
      connections: 4,
    },
  ];
}
