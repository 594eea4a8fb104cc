/**
 * Issue #28 leftovers, share links through the real HTTP app: a visitor's file URLs are the link's own and stop the
 * moment it is revoked or expires (the same 404 as an unknown file) while the owners' URLs of the same files keep
 * working; a visitor's upload refused for its link is answered before any body byte is read (no scratch file).
 */
import { readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, startTestApp, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  ds: string;
  item: string;
}
const t = suite<Ctx>('share: revoked links and early refusals');

t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  ctx.ds = await ctx.app.collection('Revocable');
  const r = await ctx.app.upload({ datasetId: ctx.ds }, { bytes: await makeImage(), filename: 'a.jpg' });
  assert.is(r.status, 200, JSON.stringify(r.body));
  ctx.item = r.body.mediaId;
});
t.after(async (ctx) => ctx.app.close());

async function link(ctx: Ctx, body: object) {
  const r = await ctx.app.request('POST', `/api/dataset/${ctx.ds}/share-links`, { body });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body as { link: { id: string }; token: string };
}

/** The visitor's download URL of the one shared item. */
async function visitorUrl(ctx: Ctx, token: string): Promise<string> {
  const r = await fetch(`${ctx.app.baseUrl}/api/share/${token}/media`);
  assert.is(r.status, 200);
  const { media } = (await r.json()) as { media: Array<{ downloadUrl: string }> };
  assert.ok(media[0].downloadUrl, 'downloads are allowed');
  return media[0].downloadUrl;
}

const get = async (url: string) => {
  const r = await fetch(url);
  return { status: r.status, body: r.status === 200 ? null : await r.json(), cache: r.headers.get('cache-control') };
};

t('revoking a link stops its visitor’s file URLs at once; the owner’s keep working', async (ctx) => {
  const { token, link: l } = await link(ctx, { kind: 'selection', mediaIds: [ctx.item], canDownload: true });
  const url = await visitorUrl(ctx, token);
  assert.match(url, `/files/s/${l.id}/`);
  const before = await get(url);
  assert.is(before.status, 200);
  assert.is(before.cache, 'private, no-cache', 'a browser asks again before reusing it');
  const owner = (await ctx.app.request('GET', `/api/media/${ctx.item}`)).body.media.blob as string;
  assert.ok(owner && !owner.includes('/files/s/'), owner);
  // A visitor URL of another link, or one moved onto another link id, does not open the file.
  const other = await link(ctx, { kind: 'selection', mediaIds: [ctx.item], canDownload: true });
  assert.is((await get(url.replace(l.id, other.link.id))).status, 404, 'a signature is bound to its link');

  assert.is((await ctx.app.request('DELETE', `/api/share-links/${l.id}`)).status, 200);
  const unknown = await get(url.replace(/\/files\/s\/[^/]+\/[^/]+\//, `/files/s/${l.id}/${'A'.repeat(22)}/`));
  const after = await get(url);
  assert.is(after.status, 404, 'revoked: gone at once');
  assert.equal(after.body, unknown.body, 'the same answer as an unknown file');
  assert.is((await get(owner)).status, 200, 'the owner’s URL is unaffected');
  assert.is((await get(await visitorUrl(ctx, other.token))).status, 200, 'another live link is unaffected');
});

t('an expired link’s visitor URLs stop too', async (ctx) => {
  const { token, link: l } = await link(ctx, { kind: 'selection', mediaIds: [ctx.item], canDownload: true });
  const url = await visitorUrl(ctx, token);
  assert.is((await get(url)).status, 200);
  const past = new Date(Date.now() - 1000).toISOString();
  await ctx.app.app.services.storage.shares.update(l.id, { expiresAt: past }, new Date().toISOString());
  assert.is((await get(url)).status, 404);
});

/**
 * Sends a multipart upload's head (declaring `declared` bytes) and its first part only, never the rest, and
 * answers the status line the server sends meanwhile (null when none came within `ms`).
 */
async function headOnlyUpload(app: TestApp, urlPath: string, declared: number, ms = 4000): Promise<string | null> {
  const boundary = '----early' + 'x'.repeat(16);
  const start = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\n\r\n`;
  const port = new URL(app.baseUrl).port;
  const head =
    `POST ${urlPath} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${declared}\r\n\r\n`;
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  let got = '';
  socket.on('data', (d) => (got += d.toString('latin1')));
  await new Promise((r) => socket.once('connect', r));
  socket.write(head + start + 'y'.repeat(1024));
  const until = Date.now() + ms;
  while (!got.includes('\r\n') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  socket.destroy();
  return got.includes('\r\n') ? got.slice(0, got.indexOf('\r\n')) : null;
}

t('a visitor upload refused for its link is answered before its body is sent, leaving no scratch file', async (ctx) => {
  const { app } = ctx;
  const albumId = (await app.request('POST', `/api/dataset/${ctx.ds}/albums`, { body: { name: 'Party' } })).body.id;
  const open = await link(ctx, { kind: 'album', albumId, canUpload: true });
  const viewOnly = await link(ctx, { kind: 'album', albumId });
  const locked = await link(ctx, { kind: 'album', albumId, canUpload: true, password: 'secret pass' });
  const revoked = await link(ctx, { kind: 'album', albumId, canUpload: true });
  assert.is((await app.request('DELETE', `/api/share-links/${revoked.link.id}`)).status, 200);
  const expired = await link(ctx, { kind: 'album', albumId, canUpload: true });
  const past = new Date(Date.now() - 1000).toISOString();
  await app.app.services.storage.shares.update(expired.link.id, { expiresAt: past }, new Date().toISOString());
  const big = 512 * 1024 ** 2; // declared, never sent
  const cases: Array<[string, string]> = [
    [viewOnly.token, '403'],
    [locked.token, '401'],
    [revoked.token, '404'],
    [expired.token, '404'],
    ['x'.repeat(43), '404'],
  ];
  for (const [token, status] of cases) {
    const line = await headOnlyUpload(app, `/api/share/${token}/upload`, big);
    assert.ok(line, `${status}: answered while the body was still unsent`);
    assert.match(line, ` ${status} `);
  }
  assert.equal(readdirSync(path.join(app.dataDir, 'tmp')), [], 'no scratch file was started');
  // The link that takes uploads is still reading its body: nothing answers before the body comes.
  assert.is(await headOnlyUpload(app, `/api/share/${open.token}/upload`, big, 700), null, 'a good link reads on');
});

t.run();
