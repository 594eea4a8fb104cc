import type { Context } from 'koa';
import { z } from 'zod';
import { invalid } from '../../../platform/errors.js';
import { defineRoute } from '../../../http/route.js';
import { clientAddress } from '../../accounts/index.js';
import { SHARE_COOKIE, SHARE_SESSION_MS } from '../tokens.js';
import { shareInfo, sharedItem, sharedMedia, unlock, type VisitorRequest } from '../visitor.js';
import { uploadableLink, visitorUpload } from '../visitorUpload.js';

/**
 * The visitor's routes: `auth: 'share'`, so no account credential is read, and the share session cookie is
 * read only here. Its Path is the link's own route prefix: the browser never sends it anywhere else.
 */
const tokenParams = z.object({ token: z.string() });

function readShareCookie(ctx: Context): string | undefined {
  for (const part of ctx.get('cookie').split(';')) {
    const eq = part.indexOf('=');
    if (eq >= 0 && part.slice(0, eq).trim() === SHARE_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const visitor = (ctx: Context, token: string): VisitorRequest => ({
  token,
  session: readShareCookie(ctx),
  client: clientAddress(ctx),
});

function setShareCookie(ctx: Context, token: string, value: string): void {
  const secure = ctx.secure ? '; Secure' : '';
  const path = `/api/share/${encodeURIComponent(token)}`;
  const maxAge = Math.floor(SHARE_SESSION_MS / 1000);
  ctx.append(
    'Set-Cookie',
    `${SHARE_COOKIE}=${value}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`,
  );
}

const gone = { 404: 'share link not found: unknown, expired and revoked links answer alike' };
const page = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(60),
  offset: z.coerce.number().int().min(0).default(0),
});

interface ParsedFile {
  filepath: string;
  originalFilename: string | null;
  hash?: string | null;
}

export const visitorRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/share/:token',
    tag: 'share',
    auth: 'share',
    summary: 'A share link as its visitor sees it: name, permissions, expiry (counts a view)',
    params: tokenParams,
    responses: { 401: 'the link needs its password (POST …/unlock)', ...gone },
    handle: ({ services, params, ctx }) => shareInfo(services, visitor(ctx, params.token)),
  }),
  defineRoute({
    method: 'post',
    path: '/api/share/:token/unlock',
    tag: 'share',
    auth: 'share',
    summary: "Enter a share link's password: sets the share session cookie (for this link's routes only)",
    params: tokenParams,
    body: z.object({ password: z.string().max(1024) }).strict(),
    responses: { 401: 'wrong password', 429: 'too many wrong passwords (per link and per address)', ...gone },
    handle: async ({ services, params, body, ctx }) => {
      setShareCookie(ctx, params.token, await unlock(services, visitor(ctx, params.token), body.password));
      return { unlocked: true };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/share/:token/media',
    tag: 'share',
    auth: 'share',
    summary: 'The shared items, one page (an album or selection in its order, a folder newest first)',
    params: tokenParams,
    query: page,
    responses: { 401: 'the link needs its password', ...gone },
    handle: ({ services, params, query, ctx }) => sharedMedia(services, visitor(ctx, params.token), query),
  }),
  defineRoute({
    method: 'get',
    path: '/api/share/:token/media/:mediaId',
    tag: 'share',
    auth: 'share',
    summary: 'One shared item (any other id answers 404)',
    params: z.object({ token: z.string(), mediaId: z.string() }),
    responses: { 401: 'the link needs its password', 404: 'share link or item not found' },
    handle: ({ services, params, ctx }) => sharedItem(services, visitor(ctx, params.token), params.mediaId),
  }),
  defineRoute({
    method: 'post',
    path: '/api/share/:token/upload',
    tag: 'share',
    auth: 'share',
    summary: 'Upload a photo or video into a share link that takes uploads (multipart/form-data: file)',
    params: tokenParams,
    bodyType: 'multipart',
    // Refused for its link (unknown, revoked, expired, no password, no upload permission) before the file is read.
    beforeBody: async ({ services, params, ctx }) => void (await uploadableLink(services, visitor(ctx, params.token))),
    responses: {
      401: 'the link needs its password',
      403: 'the link does not take uploads',
      413: 'file too large',
      415: 'not a supported image or video',
      ...gone,
    },
    handle: async ({ services, params, ctx }) => {
      const files = ctx.request.files ?? {};
      const file = (files.file ? [files.file].flat()[0] : Object.values(files).flat()[0]) as unknown as
        ParsedFile | undefined;
      if (!file) throw invalid('file is required (multipart field "file")');
      return visitorUpload(services, visitor(ctx, params.token), {
        tempPath: file.filepath,
        originalName: file.originalFilename,
        sha256: file.hash,
      });
    },
  }),
];
