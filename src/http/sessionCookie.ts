import type { Context } from 'koa';

/** The cookie that carries a browser session's secret (httpOnly: the web app never reads it). */
export const SESSION_COOKIE = 'lumen_session';
/** The header a cookie-authenticated write must carry: the session's CSRF token, as sign-in answered it. */
export const CSRF_HEADER = 'x-csrf-token';

/** A session secret as we make them: 32 random bytes in base64url. Anything else is not looked up. */
const SECRET_RE = /^[A-Za-z0-9_-]{43}$/;

/** The session secret the request's cookie carries, or undefined (absent or not in our format). */
export function readSessionCookie(ctx: Pick<Context, 'get'>): string | undefined {
  for (const part of ctx.get('cookie').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (SECRET_RE.test(value)) return value;
  }
  return undefined;
}

/**
 * Written by hand rather than through ctx.cookies so the attributes read exactly as the web app's spec
 * names them. `Secure` when the request came over https (koa's `proxy` honours X-Forwarded-Proto);
 * `SameSite=Lax` with the CSRF header covers cross-site writes; `Path=/` serves the API and the web app.
 */
function cookie(ctx: Context, value: string, expires: Date): string {
  const maxAge = Math.max(0, Math.floor((expires.getTime() - Date.now()) / 1000));
  const secure = ctx.secure ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/; Expires=${expires.toUTCString()}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

/** Sets the session cookie until the session's absolute expiry. */
export function setSessionCookie(ctx: Context, secret: string, expiresAt: string): void {
  ctx.append('Set-Cookie', cookie(ctx, secret, new Date(expiresAt)));
}

/** Tells the browser to drop the session cookie. */
export function clearSessionCookie(ctx: Context): void {
  ctx.append('Set-Cookie', cookie(ctx, '', new Date(0)));
}
