/**
 * Albums (issue 28) through the real HTTP app: the album routes, who may write, items of other collections
 * refused, and the albumId browse filter with search and the other filters (test/http/share.test.ts: links).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, startTestApp, type Reply, type TestApp } from '../helpers/testApp.js';

interface Ctx {
  app: TestApp;
  ds: string;
  /** Items in the collection's root, by name. */
  items: Record<string, string>;
  /** An item of another collection. */
  elsewhere: string;
}
const t = suite<Ctx>('albums');

async function upload(app: TestApp, datasetId: string, name: string, color = 10): Promise<string> {
  const bytes = await makeImage({ color: { r: color, g: 100, b: 200 } });
  const r = await app.upload({ datasetId }, { bytes, filename: name, type: 'image/jpeg' });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.mediaId;
}

t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  ctx.ds = await ctx.app.collection('Shared stuff');
  ctx.items = {};
  const names = { red: 'red bus.jpg', blue: 'blue boat.jpg', green: 'green tree.jpg', kite: 'red kite.jpg' };
  for (const [i, [key, name]] of Object.entries(names).entries())
    ctx.items[key] = await upload(ctx.app, ctx.ds, name, 20 + i * 40);
  ctx.elsewhere = await upload(ctx.app, await ctx.app.collection('Private'), 'secret.jpg');
});
t.after(async (ctx) => ctx.app.close());

function fails(r: Reply, status: number, what: string): void {
  assert.is(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(Object.keys(r.body ?? {}).sort(), ['error', 'message'], `${what}: {error, message}`);
}
const ok = (r: Reply, what: string) => assert.is(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);

async function album(ctx: Ctx, name: string, ids: string[]): Promise<string> {
  const r = await ctx.app.request('POST', `/api/dataset/${ctx.ds}/albums`, { body: { name, mediaIds: ids } });
  ok(r, 'create album');
  return r.body.id;
}

t('albums: create with items, add, reorder, cover, rename, remove, delete; listed in order', async (ctx) => {
  const { app, items } = ctx;
  const id = await album(ctx, 'Trip', [items.red, items.blue]);
  ok(await app.request('POST', `/api/albums/${id}/items`, { body: { mediaIds: [items.green, items.red] } }), 'add');
  ok(await app.request('PUT', `/api/albums/${id}/order`, { body: { mediaIds: [items.green] } }), 'reorder');
  const listed = await app.request('GET', `/api/albums/${id}/media`);
  ok(listed, 'album media');
  assert.equal(
    listed.body.media.map((m: { id: string }) => m.id),
    [items.green, items.red, items.blue],
  );
  assert.is(listed.body.pagination.total, 3);
  const paged = await app.request('GET', `/api/albums/${id}/media?limit=1&offset=1`);
  assert.equal(
    paged.body.media.map((m: { id: string }) => m.id),
    [items.red],
  );
  const cover = await app.request('PATCH', `/api/albums/${id}`, { body: { coverMediaId: items.blue, name: 'Trip!' } });
  ok(cover, 'cover');
  assert.is(cover.body.coverMediaId, items.blue);
  fails(await app.request('PATCH', `/api/albums/${id}`, { body: { coverMediaId: items.kite } }), 400, 'cover outside');
  fails(await app.request('PATCH', `/api/albums/${id}`, { body: { name: '  ' } }), 400, 'blank name');
  const gone = await app.request('POST', `/api/albums/${id}/items/remove`, { body: { mediaIds: [items.blue] } });
  assert.is(gone.body.album.coverMediaId, null);
  const list = await app.request('GET', `/api/dataset/${ctx.ds}/albums`);
  assert.ok(list.body.albums.some((a: { id: string; itemCount: number }) => a.id === id && a.itemCount === 2));
  ok(await app.request('DELETE', `/api/albums/${id}`), 'delete');
  fails(await app.request('GET', `/api/albums/${id}/media`), 404, 'deleted album');
});

t('albums: items of another collection or unknown ids are refused; viewers cannot write', async (ctx) => {
  const { app, items } = ctx;
  const body = { name: 'X', mediaIds: [items.red, ctx.elsewhere] };
  fails(await app.request('POST', `/api/dataset/${ctx.ds}/albums`, { body }), 404, 'item of another collection');
  const id = await album(ctx, 'Mine', [items.red]);
  fails(await app.request('POST', `/api/albums/${id}/items`, { body: { mediaIds: ['nope'] } }), 404, 'garbage id');
  fails(await app.request('GET', `/api/albums/not-an-id/media`), 404, 'garbage album id');
  const viewer = await app.request('POST', '/api/keys', { body: { role: 'viewer', name: 'v' } });
  const key = viewer.body.key;
  ok(await app.request('GET', `/api/albums/${id}/media`, { key }), 'viewer reads');
  fails(await app.request('POST', `/api/albums/${id}/items`, { key, body: { mediaIds: [items.blue] } }), 403, 'viewer');
  fails(await app.request('DELETE', `/api/albums/${id}`, { key }), 403, 'viewer delete');
  fails(await app.request('POST', `/api/dataset/${ctx.ds}/albums`, { key, body: { name: 'v' } }), 403, 'viewer create');
});

t('browse: albumId works with q, type and paging; a deleted item drops out of the album', async (ctx) => {
  const { app, items } = ctx;
  const extra = await upload(app, ctx.ds, 'red lorry.jpg', 250);
  const id = await album(ctx, 'Reds', [items.red, items.blue, extra]);
  const all = await app.request('GET', `/api/dataset/${ctx.ds}/media?albumId=${id}&limit=10`);
  ok(all, 'browse album');
  assert.equal(all.body.media.map((m: { id: string }) => m.id).sort(), [items.red, items.blue, extra].sort());
  const red = await app.request('GET', `/api/dataset/${ctx.ds}/media?albumId=${id}&q=red&limit=10`);
  ok(red, 'search album');
  const found = red.body.media.map((m: { id: string }) => m.id);
  assert.ok(found.includes(items.red) && !found.includes(items.kite), `album search: ${found}`);
  const none = await app.request('GET', `/api/dataset/${ctx.ds}/media?albumId=${id}&type=video`);
  assert.is(none.body.pagination.total, 0);
  fails(await app.request('GET', `/api/dataset/${ctx.ds}/media?albumId=${crypto.randomUUID()}`), 404, 'unknown');
  ok(await app.request('DELETE', `/api/media/${extra}`), 'delete item');
  const after = await app.request('GET', `/api/albums/${id}/media`);
  assert.equal(
    after.body.media.map((m: { id: string }) => m.id),
    [items.red, items.blue],
  );
});

t.run();
