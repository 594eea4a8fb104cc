import type Router from '@koa/router';
import 'koa-body';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { invalid } from '../platform/errors.js';
import type { Principal, Services } from '../features/kernel/services.js';
import { jsonBody } from './bodies.js';

/** What the request edge asks of the accounts feature before a handler runs (implemented by features/accounts/guards.ts). */
export interface RequestGuards {
  /** The caller: an API key, a Bearer token, or (with neither header) a session cookie, whose writes need the CSRF header. */
  authenticate(ctx: Context): Promise<Principal>;
  rateLimit(ctx: Context, principal: Principal): void;
  /** A public route's request (no credentials read): limited per client address instead. */
  rateLimitAnonymous(ctx: Context): void;
  /** A share link visitor's request (routes with `auth: 'share'`): limited per client address, as generously as a key. */
  rateLimitVisitor(ctx: Context): void;
  /** A write request was handled: keys, roles and memberships may have changed, so no remembered key is trusted any more. */
  forgetKeys(): void;
  /** The request is over (answered or refused): whatever authenticate registered for it ends. */
  settle?(ctx: Context): void;
}

export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
/** `required`: every route unless it says otherwise. `none`: a public route (signing in), see RouteDef.auth. */
export type RouteAuth = 'required' | 'none' | 'share';
type Schema = z.ZodType;

/**
 * The largest JSON body a public route reads (sign-in forms): they read bodies before anyone is known,
 * so far less than MAX_JSON_BYTES.
 */
export const PUBLIC_JSON_BYTES = 16 * 1024;
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
  A extends RouteAuth = 'required',
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
  /**
   * `multipart` routes read ctx.request.files themselves; `body` then validates the text fields. `large-multipart`:
   * the same with the composition root's larger limit (MAX_MODEL_BUNDLE_BYTES: model bundles).
   */
  bodyType?: 'json' | 'multipart' | 'large-multipart';
  /**
   * A check that runs after authentication and before any body byte is read (a public route's own gate: a share
   * link visitor's upload refused for its link is answered before the file is streamed anywhere).
   */
  beforeBody?(input: { params: Out<P>; services: Services; ctx: Context }): Promise<void>;
  /** Status → description, for the OpenAPI document. 200 is assumed. */
  responses?: Record<number, string>;
  /** The 200 answer's JSON, for the OpenAPI document (not checked at run time: the handler's type should be). */
  response?: Schema;
  /**
   * `none` for the few routes that sign people in: no credentials are read (the handler gets no principal),
   * requests are limited per client address, JSON bodies to PUBLIC_JSON_BYTES, and the OpenAPI document
   * marks them `security: []`. `share`: a share link visitor's route (features/share): no credentials are read
   * either (the handler reads the link's token and share session itself), requests are limited per client
   * address (as generously as a key's), JSON bodies to PUBLIC_JSON_BYTES. Everything else authenticates first.
   */
  auth?: A;
  /**
   * The 200 answer's media type when it is not JSON (`text/event-stream`): the handler then returns a
   * stream, which Koa sends as it is produced.
   */
  produces?: string;
  handle(input: {
    params: Out<P>;
    query: Out<Q>;
    body: Out<B>;
    /** The caller; null on a public route. */
    principal: A extends 'none' | 'share' ? null : Principal;
    services: Services;
    ctx: Context;
  }): Promise<unknown> | unknown;
}

// The registry is heterogeneous: the handler's input types differ per route.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDef<any, any, any, any>;

export const defineRoute = <
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  A extends RouteAuth = 'required',
>(
  def: RouteDef<P, Q, B, A>,
): RouteDef<P, Q, B, A> => def;

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

/**
 * The first stage of a route: authenticate and rate limit before reading any body (an unauthenticated client
 * never gets a JSON body parsed or a file streamed to disk); a public route is only rate limited per address.
 */
function guardStage(def: AnyRoute, guards: RequestGuards): Middleware {
  return async (ctx, next) => {
    if (def.auth === 'none' || def.auth === 'share') {
      if (def.auth === 'share') guards.rateLimitVisitor(ctx);
      else guards.rateLimitAnonymous(ctx);
      ctx.state.principal = null;
    } else {
      try {
        guards.rateLimit(ctx, await guards.authenticate(ctx));
      } catch (err) {
        guards.settle?.(ctx);
        throw err;
      }
    }
    if (def.method === 'get') return next();
    try {
      await next();
    } finally {
      guards.forgetKeys(); // a write may have revoked a key or changed a role (see KEY_MEMORY_MS)
      guards.settle?.(ctx);
    }
  };
}

/** Registers routes on a router, behind authentication and rate limiting. */
export function mountRoutes(
  router: Router,
  services: Services,
  guards: RequestGuards,
  routes: AnyRoute[],
  parsers: { multipart: Middleware; json: Middleware; largeMultipart?: Middleware },
): void {
  const publicJson = jsonBody(PUBLIC_JSON_BYTES);
  for (const def of routes) {
    const json = def.auth === 'none' || def.auth === 'share' ? publicJson : parsers.json;
    const large = def.bodyType === 'large-multipart' ? (parsers.largeMultipart ?? parsers.multipart) : undefined;
    const multipart = def.bodyType === 'multipart' ? parsers.multipart : large;
    const body = multipart ?? (def.method === 'get' ? undefined : json);
    const guard = guardStage(def, guards);
    const stages: Middleware[] = body ? [guard, body] : [guard];
    const gate = def.beforeBody;
    const gateStage: Middleware = async (ctx, next) => {
      await gate?.({ params: parse(def.params, ctx.params, 'path'), services, ctx });
      return next();
    };
    if (gate) stages.splice(1, 0, gateStage);
    router[def.method](def.path, ...stages, async (ctx: Context) => {
      const principal = ctx.state.principal as Principal | null;
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
