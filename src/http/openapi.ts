import { z } from 'zod';
import type { AnyRoute } from './route.js';
import { CSRF_HEADER, SESSION_COOKIE } from './sessionCookie.js';

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output' = 'input') =>
  z.toJSONSchema(schema, { io, target: 'openapi-3.0', unrepresentable: 'any' }) as Record<string, unknown>;

const ERROR_SCHEMA = {
  type: 'object',
  properties: { error: { type: 'string' }, message: { type: 'string' } },
  required: ['error', 'message'],
};

/** API keys and Bearer tokens for programs; the session cookie for the web app (a route's `auth: 'none'`: none). */
const SECURITY_SCHEMES = {
  apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
  bearer: { type: 'http', scheme: 'bearer' },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description:
      `A signed-in browser (POST /api/auth/login). Used only when the request has neither x-api-key nor ` +
      `Authorization. Every request other than GET and HEAD must also carry the header ${CSRF_HEADER} ` +
      `with the session's csrfToken.`,
  },
};

const jsonContent = (description: string, schema: unknown) => ({
  description,
  content: { 'application/json': { schema } },
});

/**
 * Builds the OpenAPI 3 document from the same zod schemas that validate the
 * requests (src/http/route.ts), so it describes exactly what the server checks.
 */
export function buildOpenApi(routes: AnyRoute[], extra: { version: string; serverUrl: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const openPath = r.path.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ['path', r.params],
      ['query', r.query],
    ] as const) {
      if (!schema) continue;
      const js = jsonSchema(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
      for (const [name, prop] of Object.entries(js.properties ?? {})) {
        const { description, ...rest } = prop;
        parameters.push({
          name,
          in: where,
          required: where === 'path' || (js.required ?? []).includes(name),
          description,
          schema: rest,
        });
      }
    }
    const responses: Record<string, unknown> = { 200: { description: 'OK' } };
    for (const [status, description] of Object.entries(r.responses ?? {})) {
      responses[status] =
        Number(status) >= 400
          ? { description, content: { 'application/json': { schema: ERROR_SCHEMA } } }
          : { description };
    }
    if (r.response) responses[200] = jsonContent(r.responses?.[200] ?? 'OK', jsonSchema(r.response, 'output'));
    if (r.produces)
      responses[200] = {
        description: r.responses?.[200] ?? 'OK',
        content: { [r.produces]: { schema: { type: 'string' } } },
      };
    if (r.bodyType === 'multipart') responses[507] ??= diskFullResponse(); // every upload may meet a full disk
    const open = r.auth === 'none' || r.auth === 'share';
    if (!open)
      responses[401] ??= {
        description: 'Invalid or missing API key',
        content: { 'application/json': { schema: ERROR_SCHEMA } },
      };
    const op: Record<string, unknown> = {
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: [r.tag],
      operationId: `${r.method}${openPath.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)/g, (_, c: string) => c.toUpperCase())}`,
      parameters,
      responses,
      security: open ? [] : [{ apiKey: [] }, { bearer: [] }, { session: [] }],
    };
    if (r.body) {
      const type = r.bodyType?.endsWith('multipart') ? 'multipart/form-data' : 'application/json';
      const schema = jsonSchema(r.body);
      if (r.bodyType?.endsWith('multipart')) {
        (schema.properties as Record<string, unknown>).file = { type: 'string', format: 'binary' };
        schema.required = [...((schema.required as string[]) ?? []), 'file'];
      }
      op.requestBody = { required: r.method !== 'delete', content: { [type]: { schema } } };
    }
    (paths[openPath] ??= {})[r.method] = op;
  }
  paths['/healthz'] = {
    get: {
      summary: 'Liveness and readiness; no key needed',
      tags: ['system'],
      security: [],
      responses: { 200: { description: 'OK' }, 503: { description: 'not ready' } },
    },
  };
  return {
    openapi: '3.0.3',
    info: { title: 'Media library and local vision AI', version: extra.version },
    servers: [{ url: extra.serverUrl }],
    components: { securitySchemes: SECURITY_SCHEMES },
    paths,
  };
}

/** 507 (platform/diskSpace.ts, MIN_FREE_BYTES). */
const diskFullResponse = () => ({
  description: 'insufficient_storage: the disk is full, or the upload would not leave MIN_FREE_BYTES free',
  content: { 'application/json': { schema: ERROR_SCHEMA } },
});
