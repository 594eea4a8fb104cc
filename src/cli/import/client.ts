/**
 * A small HTTP client of the public API for the importer: JSON calls and multipart uploads with retries.
 * It knows the server only through HTTP (no import of the server's code), so it works against a remote
 * server and under the key's role like any other client.
 */
import { openAsBlob } from 'node:fs';

/** An answer the server gave that is not a success: its status and `{error, message}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  baseUrl: string;
  key: string;
  /** Tries per request on network errors, 5xx and 429 (default 6). */
  attempts?: number;
  /** First backoff in ms, doubled each try up to 30 s (default 500). */
  backoffMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Seconds (or an HTTP date) from Retry-After, in ms; null when absent or odd. */
function retryAfterMs(value: string | null): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null;
}

export interface ApiClient {
  json<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** Uploads one file (streamed from disk) into a collection folder; fields are the route's form fields. */
  upload<T = unknown>(fields: Record<string, string>, file: string, filename: string, sidecar?: string): Promise<T>;
  /** Requests retried so far (network errors, 5xx, 429). */
  retries(): number;
}

export function createClient(opts: ClientOptions): ApiClient {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const attempts = opts.attempts ?? 6;
  const backoff = opts.backoffMs ?? 500;
  let retried = 0;

  async function send<T>(
    method: string,
    path: string,
    body: () => Promise<string | FormData | undefined>,
    json: boolean,
  ) {
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        const headers: Record<string, string> = { 'x-api-key': opts.key };
        if (json) headers['content-type'] = 'application/json';
        res = await fetch(base + path, { method, headers, body: await body() });
      } catch (err) {
        if (attempt >= attempts) throw new ApiError(0, 'network', `cannot reach ${base}: ${(err as Error).message}`);
        retried++;
        await sleep(Math.min(30_000, backoff * 2 ** (attempt - 1)));
        continue;
      }
      const text = await res.text();
      let parsed: { error?: string; message?: string } | undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      if (res.ok) return parsed as T;
      const transient = res.status >= 500 || res.status === 429;
      if (transient && attempt < attempts) {
        retried++;
        const wait = retryAfterMs(res.headers.get('retry-after')) ?? backoff * 2 ** (attempt - 1);
        await sleep(Math.min(60_000, wait));
        continue;
      }
      throw new ApiError(res.status, parsed?.error ?? 'http', parsed?.message ?? `${res.status} ${res.statusText}`);
    }
  }

  return {
    json: (method, path, body) =>
      send(method, path, async () => (body === undefined ? undefined : JSON.stringify(body)), body !== undefined),
    upload: (fields, file, filename, sidecar) =>
      send(
        'POST',
        '/api/upload/multipart',
        async () => {
          // A fresh form each try: the file is streamed from disk, never held in memory.
          const form = new FormData();
          for (const [k, v] of Object.entries(fields)) form.append(k, v);
          form.append('file', await openAsBlob(file), filename);
          if (sidecar) form.append('sidecar', await openAsBlob(sidecar), `${filename}.xmp`);
          return form;
        },
        false,
      ),
    retries: () => retried,
  };
}
