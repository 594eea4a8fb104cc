/**
 * One HTTP request (one hop) of an image fetch (./imageInput.ts follows the
 * redirects and validates every host first): a GET over node:http / node:https
 * that connects only to the addresses it is given, keeps no pooled socket, and
 * streams the body, cut off at `maxBytes`.
 */
import http from 'node:http';
import https from 'node:https';
import { DomainError, unprocessable } from '../../platform/errors.js';
import { pinnedLookup, type ResolvedAddress } from './netGuard.js';

export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What one HTTP request (one hop) produced. */
export interface HopResult {
  status: number;
  /** The Location header of a 3xx answer. */
  location?: string;
  /** The body of a 2xx answer (already capped at maxBytes). */
  body?: Buffer;
}

export interface HopRequest {
  url: URL;
  /** The validated addresses of url's host: the only ones it may connect to. */
  addresses: ResolvedAddress[];
  signal: AbortSignal;
  maxBytes: number;
}

/** Performs one request, without following redirects. */
export type HopFetcher = (hop: HopRequest) => Promise<HopResult>;

/** The real hop: one GET over node:http(s), connecting only to `addresses`. */
export const httpFetchHop: HopFetcher = ({ url, addresses, signal, maxBytes }) =>
  new Promise<HopResult>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let settled = false;
    const finish = (err: unknown, result?: HopResult) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err) {
        req.destroy();
        reject(err);
      } else {
        resolve(result!);
      }
    };
    const onAbort = () => finish(signal.reason ?? timedOut());

    const mod = url.protocol === 'https:' ? https : http;
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const req = mod.request(
      {
        method: 'GET',
        protocol: url.protocol,
        hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        headers: {
          Host: url.host,
          Accept: 'image/*',
          'Accept-Encoding': 'identity',
          'User-Agent': 'lumen-library image fetcher',
        },
        // A fresh connection per request: a pooled socket could have been
        // opened for another request with a different allowPrivate policy.
        agent: false,
        // Connect to the validated addresses only: no second DNS query.
        lookup: pinnedLookup(addresses) as unknown as http.RequestOptions['lookup'],
      },
      (res) => {
        const status = res.statusCode ?? 0;
        res.on('error', () => {}); // errors after settling (we destroy the socket) are expected
        if (status < 200 || status >= 300) {
          const location = REDIRECT_STATUSES.has(status) ? headerValue(res.headers.location) : undefined;
          finish(null, { status, location });
          req.destroy();
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) return finish(tooLarge(maxBytes));
        const chunks: Buffer[] = [];
        let total = 0;
        res.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > maxBytes) finish(tooLarge(maxBytes));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          if (res.complete) finish(null, { status, body: Buffer.concat(chunks, total) });
          else finish(fetchFailed('connection closed before the body was complete'));
        });
        res.on('error', (err) => finish(fetchFailed(describe(err))));
        res.on('close', () => {
          if (!res.complete) finish(fetchFailed('connection closed before the body was complete'));
        });
      },
    );
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => finish(signal.aborted ? (signal.reason ?? timedOut()) : fetchFailed(describe(err))));
    req.end();
  });

function formatSize(bytes: number): string {
  const MB = 1024 * 1024;
  if (bytes >= MB) return `${Number((bytes / MB).toFixed(2))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(2))} KB`;
  return `${bytes} bytes`;
}

export function tooLarge(maxBytes: number): DomainError {
  return new DomainError('too_large', `image is larger than ${formatSize(maxBytes)}`);
}

export function timedOut(): DomainError {
  return unprocessable('could not fetch image: timed out');
}

function fetchFailed(why: string): DomainError {
  return unprocessable(`could not fetch image: ${why}`);
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ? `${e.code}` : (e?.message ?? 'request failed');
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
