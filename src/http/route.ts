import type Router from '@koa/router';
import 'koa-body';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { invalid } from '../platform/errors.js';
import type { Principal, Services } from '../features/kernel/services.js';

/** What the request edge asks of the accounts feature before a handler runs (implemented by features/accounts/guards.ts). */
export interface RequestGuards {
  authenticate(ctx: Context): Promise<Principal>;
  rateLimit(ctx: Context, principal: Principal): void;
  /** A write request was handled: keys, roles and memberships may have changed, so no remembered key is trusted any more. */
  forgetKeys(): void;
}

export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * One route: its schemas (which both validate requests and generate
 * /api/openapi.json, so the document can't drift from the code) and a thin
 * handler that calls a domain function and returns the response body.
 */
export interface RouteDef<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
> {
  method: Method;
  /** Koa-router style, e.g. `/api/media/:mediaId`. */
  path: string;
  summary: string;
  /** Longer text for the OpenAPI document, when the summary cannot say enough (formats, semantics). */
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  /** `multipart` routes read ctx.request.files themselves; `body` then validates the text fields. */
  bodyType?: 'json' | 'multipart';
  /** Status → description, for the OpenAPI document. 200 is assumed. */
  responses?: Record<number, string>;
  /**
   * The 200 answer's media type when it is not JSON (`text/event-stream`): the handler then returns a
   * stream, which Koa sends as it is produced.
   */
  produces?: string;
  handle(input: {
    params: Out<P>;
    query: Out<Q>;
    body: Out<B>;
    principal: Principal;
    services: Services;
    ctx: Context;
  }): Promise<unknown> | unknown;
}

// The registry is heterogeneous: the handler's input types differ per route.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDef<any, any, any>;

export const defineRoute = <
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
>(
  def: RouteDef<P, Q, B>,
): RouteDef<P, Q, B> => def;

/** Turns the first zod issue into a message that names the field. */
export function describeZodError(error: z.ZodError, where: string): string {
  const issue = error.issues[0];
  const field = issue.path.length ? issue.path.join('.') : where;
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) return `${field} is required`;
  if (issue.code === 'unrecognized_keys') return `${where}: ${issue.message}`;
  return `${field}: ${issue.message}`;
}

function parse<S extends Schema | undefined>(schema: S, value: unknown, where: string): Out<S> {
  if (!schema) return undefined as Out<S>;
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(describeZodError(result.error, where));
  return result.data as Out<S>;
}

/** Registers routes on a router, behind authentication and rate limiting. */
export function mountRoutes(
  router: Router,
  services: Services,
  guards: RequestGuards,
  routes: AnyRoute[],
  parsers: { multipart: Middleware; json: Middleware },
): void {
  for (const def of routes) {
    // Authenticate before reading any body: an unauthenticated client never gets a JSON body parsed or a file streamed to disk.
    const authenticate: Middleware = async (ctx, next) => {
      const principal = await guards.authenticate(ctx);
      guards.rateLimit(ctx, principal);
      if (def.method === 'get') return next();
      try {
        await next();
      } finally {
        guards.forgetKeys(); // a write may have revoked a key or changed a role (see KEY_MEMORY_MS)
      }
    };
    const body = def.bodyType === 'multipart' ? parsers.multipart : def.method === 'get' ? undefined : parsers.json;
    const stages: Middleware[] = body ? [authenticate, body] : [authenticate];
    router[def.method](def.path, ...stages, async (ctx: Context) => {
      const principal = ctx.state.principal as Principal;
      const params = parse(def.params, ctx.params, 'path');
      const query = parse(def.query, ctx.query, 'query');
      const rawBody = ctx.request.body;
      const body = parse(def.body, rawBody === undefined || rawBody === null || rawBody === '' ? {} : rawBody, 'body');
      const result = await def.handle({ params, query, body, principal, services, ctx });
      if (result !== undefined) ctx.body = result;
      else if (ctx.body === undefined) ctx.status = 204;
    });
  }
}

/** Query-string booleans: `true`/`false`/`1`/`0`. */
export const queryBool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
