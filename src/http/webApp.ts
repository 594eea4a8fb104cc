import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Context, Next } from 'koa';

/**
 * The page's Content-Security-Policy: everything from this server only, no inline script, no plugins,
 * not framable. Images and videos come from the server's own file URLs (blob: for local previews of
 * files being uploaded).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Paths that belong to the server, never to the web application's fallback. */
const SERVER_PREFIXES = ['/api', '/files', '/healthz'];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

interface WebFile {
  file: string;
  type: string;
  size: number;
  /** Hashed names never change content: cached for a year. */
  immutable: boolean;
}

/** Every file of the built application by URL path (only these are ever served: no path from a request reaches the disk). */
function listFiles(webDir: string): Map<string, WebFile> {
  const files = new Map<string, WebFile>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const url = '/' + path.relative(webDir, full).split(path.sep).join('/');
        const type = TYPES[path.extname(entry.name)] ?? 'application/octet-stream';
        files.set(url, { file: full, type, size: statSync(full).size, immutable: url.startsWith('/assets/') });
      }
    }
  };
  if (existsSync(webDir)) walk(webDir);
  return files;
}

const isServerPath = (p: string) => SERVER_PREFIXES.some((prefix) => p === prefix || p.startsWith(prefix + '/'));

/**
 * Serves the built web application (dist/web) at `/`: hashed assets with immutable caching, and
 * index.html (no-cache) for any other GET outside /api, /files and /healthz, so every screen has a
 * real URL. Runs after the API router: it answers only what no route answered.
 */
export function webAppMiddleware(webDir: string) {
  let files = listFiles(webDir);
  let scannedAt = Date.now();
  const lookup = (p: string): WebFile | undefined => {
    // A rebuild while running (development) renames the assets: look again, at most once a second.
    if (!files.has(p) && Date.now() - scannedAt > 1000) {
      files = listFiles(webDir);
      scannedAt = Date.now();
    }
    return files.get(p);
  };
  return async (ctx: Context, next: Next) => {
    await next();
    if (ctx.body !== undefined || ctx.status !== 404) return;
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || isServerPath(ctx.path)) return;
    const asset = lookup(ctx.path);
    if (!asset && ctx.path.startsWith('/assets/')) return; // a stale hashed name: a real 404, not the page
    const page = asset ?? lookup('/index.html');
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    if (!page) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The web application is not built. Run `npm run build`, then restart the server.\n';
      return;
    }
    ctx.status = 200;
    ctx.type = page.type;
    ctx.length = page.size;
    ctx.set('Cache-Control', page.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.body = ctx.method === 'HEAD' ? null : createReadStream(page.file);
  };
}
