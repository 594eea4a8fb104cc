/**
 * The web application's only way to the server: the public JSON API, the same routes the SDK uses.
 * Same-origin requests carry the session cookie; writes carry the session's CSRF token in
 * `x-csrf-token`. Failures become ApiError with the server's `{error, message}`.
 */
import { signal } from '@preact/signals';

/** The CSRF token of the signed-in session (set by lib/session.ts); sent on every write. */
export const csrfToken = signal<string | null>(null);

/** Called when a request answers 401: the session ended (signed out elsewhere, expired). */
export const onUnauthenticated = { handler: (): void => undefined };

/** A refused or failed request: the HTTP status and the server's coded error. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The whole error body, for fields beyond `{error, message}` (e.g. `retryAfterSeconds`). */
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;

/** `/api/x` plus the defined query parameters. */
export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function errorOf(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as { error?: string; message?: string } | null;
  const extra: Record<string, unknown> = { ...body };
  // A rate limit's wait travels in Retry-After (seconds).
  const retryAfter = Number(res.headers.get('retry-after'));
  if (retryAfter > 0 && extra.retryAfterSeconds === undefined) extra.retryAfterSeconds = retryAfter;
  return new ApiError(res.status, body?.error ?? 'http_' + res.status, body?.message ?? res.statusText, extra);
}

/** Sends a request and returns the parsed JSON body (undefined for 204). */
export async function api<T = unknown>(
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  options: { query?: Query; body?: unknown; signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken.value) headers['x-csrf-token'] = csrfToken.value;
  const res = await fetch(apiUrl(path, options.query), {
    method,
    headers,
    credentials: 'same-origin',
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  if (res.status === 401 && !path.startsWith('/api/auth/')) onUnauthenticated.handler();
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** A short, human sentence for any failure (shown in error states). */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.name === 'AbortError' ? 'cancelled' : err.message;
  return String(err);
}
