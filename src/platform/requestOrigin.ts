import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The origin (`http://host:port`) the current HTTP request came to, carried
 * through everything the request awaits. Set by the request edge
 * (http/requestOrigin.ts); read where URLs are made (files/fileUrls.ts) so
 * that, without PUBLIC_URL, a browser elsewhere on the LAN gets links on the
 * host it used. Undefined outside a request (background jobs).
 */
const current = new AsyncLocalStorage<string>();

export function withRequestOrigin<T>(origin: string, fn: () => T): T {
  return current.run(origin, fn);
}

export function requestOrigin(): string | undefined {
  return current.getStore();
}
