import type { Context, Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { type DomainError, invalid } from '../platform/errors.js';

/**
 * The deepest nesting of arrays and objects a JSON body may have (README, "Request limits"). Deeper
 * documents are refused with 400 before a handler sees them: serialising one (`JSON.stringify`) would
 * overflow the stack.
 */
export const MAX_JSON_DEPTH = 64;

/** True when `value` nests arrays/objects deeper than `max` levels (walked without recursion). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A lone surrogate: half of a UTF-16 pair without its other half. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The path (`a.b[2]`) of the first string or object key in `value` that is not well-formed Unicode (a lone
 * surrogate, which JSON's `\ud800` escapes can carry), or undefined. Such text cannot be stored as UTF-8 as
 * it was sent: SQLite would keep U+FFFD instead and the client's string would no longer match (issue #29).
 */
export function illFormedText(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return at || 'the body';
    } else if (Array.isArray(v)) {
      v.forEach((child, i) => stack.push([child, `${at}[${i}]`]));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) return at ? `a key of ${at}` : 'a key';
        stack.push([child, at ? `${at}.${k}` : k]);
      }
    }
  }
  return undefined;
}

/** zlib's error codes for input that is not in the format; Brotli's all start with `ERR__`. */
const ZLIB_CODES = new Set(['Z_DATA_ERROR', 'Z_BUF_ERROR', 'Z_STREAM_ERROR', 'Z_NEED_DICT']);

/** A body that is not in the Content-Encoding it names is the client's mistake: 400 naming the encoding. */
export function decodingError(ctx: Context, err: unknown): DomainError | undefined {
  const e = err as { code?: string; errno?: number; status?: number };
  const encoding = ctx.get('content-encoding').trim().toLowerCase() || 'identity';
  const fromZlib = e.code !== undefined && (ZLIB_CODES.has(e.code) || e.code.startsWith('ERR__'));
  if (!fromZlib || e.status !== undefined) return undefined;
  return invalid(`request body is not valid ${encoding} data (Content-Encoding: ${encoding})`);
}

/**
 * The JSON body parser, run per route after authentication (an unauthenticated request's body is
 * never read). Refuses bodies that do not decompress and bodies nested deeper than MAX_JSON_DEPTH.
 */
export function jsonBody(limitBytes: number): Middleware {
  const parse = koaBody({
    json: true,
    multipart: false,
    urlencoded: false,
    text: false,
    jsonLimit: limitBytes,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  });
  return async (ctx, next) => {
    try {
      await parse(ctx, async () => undefined);
    } catch (err) {
      // The JSON parser (co-body's bourne) refuses `__proto__` keys: name the rule rather than its wording.
      if ((err as Error).message === 'Object contains forbidden prototype property') {
        throw invalid('a JSON object key may not be "__proto__" (any other key, "constructor" included, is fine)');
      }
      throw decodingError(ctx, err) ?? err;
    }
    if (nestsDeeperThan(ctx.request.body, MAX_JSON_DEPTH)) {
      throw invalid(`request body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
    }
    const illFormed = illFormedText(ctx.request.body);
    if (illFormed !== undefined) {
      throw invalid(`${illFormed.slice(0, 200)} is not well-formed Unicode text (it holds a lone UTF-16 surrogate)`);
    }
    await next();
  };
}
