import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Reply, TestApp } from './testApp.js';

/**
 * A browser for the sign-in tests: keeps the lumen_session cookie the server sets (and drops it when the
 * server clears it), sends it without any API key, and adds the session's CSRF token to writes unless told
 * otherwise (`csrf: false`, or a string to send instead).
 */
export interface Browser {
  cookie: string | null;
  csrf: string | null;
  request<T = any>(
    method: string,
    url: string,
    opts?: { body?: unknown; csrf?: boolean | string; headers?: Record<string, string> },
  ): Promise<Reply<T>>;
  /** POST /api/auth/login; remembers the csrf token of a 200. */
  login(email: string, password: string): Promise<Reply>;
}

/** The Set-Cookie header for lumen_session of a reply, if any. */
export function sessionSetCookie(r: Reply): string | undefined {
  return r.headers.getSetCookie().find((c) => c.startsWith('lumen_session='));
}

export function browser(app: TestApp, extraHeaders: Record<string, string> = {}): Browser {
  const b: Browser = {
    cookie: null,
    csrf: null,
    async request(method, url, opts = {}) {
      const headers: Record<string, string> = { ...extraHeaders, ...(opts.headers ?? {}) };
      if (b.cookie) headers.cookie = `lumen_session=${b.cookie}`;
      const csrf = opts.csrf === undefined || opts.csrf === true ? b.csrf : opts.csrf || null;
      if (csrf && method !== 'GET') headers['x-csrf-token'] = csrf;
      const r = await app.request(method, url, { key: null, body: opts.body, headers });
      const set = sessionSetCookie(r);
      if (set) {
        const value = /^lumen_session=([^;]*)/.exec(set)![1];
        b.cookie = value || null;
        if (!value) b.csrf = null;
      }
      if (r.status === 200 && r.body && typeof r.body.csrfToken === 'string') b.csrf = r.body.csrfToken;
      return r;
    },
    login(email, password) {
      return b.request('POST', '/api/auth/login', { body: { email, password } });
    },
  };
  return b;
}

/** The setup link the server wrote to DATA_DIR/setup-link, and its token. */
export function setupLink(app: TestApp): { url: string; token: string } {
  const url = readFileSync(path.join(app.dataDir, 'setup-link'), 'utf8').trim();
  return { url, token: new URL(url).searchParams.get('token')! };
}

export const OWNER_EMAIL = 'owner@example.com';
export const OWNER_PASSWORD = 'correct horse battery';

/** Uses the setup link: the owner gets OWNER_EMAIL / OWNER_PASSWORD; returns the signed-in browser. */
export async function setUpOwner(app: TestApp): Promise<Browser> {
  const b = browser(app);
  const r = await b.request('POST', '/api/auth/setup', {
    body: { token: setupLink(app).token, email: OWNER_EMAIL, password: OWNER_PASSWORD, name: 'Olive Owner' },
  });
  if (r.status !== 200) throw new Error(`setup failed: ${r.status} ${JSON.stringify(r.body)}`);
  return b;
}
