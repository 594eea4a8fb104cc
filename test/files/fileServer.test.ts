import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalBlobStore } from '../../src/files/localBlobStore.js';
import { contentDisposition, fileServerMiddleware, parseRange } from '../../src/files/fileServer.js';
import { FileUrls } from '../../src/files/fileUrls.js';

let dataDir = '';
let server: Server;
let base = '';
let store: LocalBlobStore;
let urls: FileUrls;
const content = Buffer.from('0123456789abcdefghij'); // 20 bytes
let key = '';
let emptyKey = '';
/** The share links the test server counts as live; a lookup of 'broken' throws. */
const liveLinks = new Set<string>();
const fail = (id: string): boolean => {
  if (id === 'broken') throw new Error('the database is gone');
  return false;
};

test.before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'fileserver-'));
  store = new LocalBlobStore(dataDir);
  await store.init();
  key = (await store.putBuffer(content, 'mp4')).key;
  emptyKey = (await store.putBuffer(Buffer.alloc(0), 'jpg')).key;
  const app = new Koa();
  urls = new FileUrls('test-secret', 'http://placeholder');
  app.use(fileServerMiddleware({ store, urls, shareLinkLive: async (id) => liveLinks.has(id) || fail(id) }));
  app.use((ctx) => {
    ctx.body = { passedThrough: ctx.path };
  });
  server = app.listen(0);
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after(async () => {
  await new Promise((r) => server.close(r));
  await rm(dataDir, { recursive: true, force: true });
});

const pathOf = (k: string, name?: string) => new URL(urls.urlFor(k, name)).pathname;
const get = (p: string, headers: Record<string, string> = {}, method = 'GET') => fetch(base + p, { method, headers });

test('GET serves the whole file with cache, type and safety headers', async () => {
  const res = await get(pathOf(key));
  assert.is(res.status, 200);
  assert.equal(Buffer.from(await res.arrayBuffer()), content);
  assert.is(res.headers.get('content-type'), 'video/mp4');
  assert.is(res.headers.get('content-length'), '20');
  assert.is(res.headers.get('accept-ranges'), 'bytes');
  assert.is(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.is(res.headers.get('etag'), `"${key.slice(0, 64)}"`);
  assert.is(res.headers.get('x-content-type-options'), 'nosniff');
  assert.is(res.headers.get('content-disposition'), null);
});

test('a share visitor’s URL is served only while its link is live, bound to its link, never cached as immutable', async () => {
  const share = (link: string, name?: string) => new URL(urls.urlForShare(link, key, name)).pathname;
  liveLinks.add('link-a');
  const res = await get(share('link-a', 'clip.mp4'));
  assert.is(res.status, 200);
  assert.equal(Buffer.from(await res.arrayBuffer()), content);
  assert.is(res.headers.get('cache-control'), 'private, no-cache');
  const moved = share('link-a').replace('/link-a/', '/link-b/');
  liveLinks.add('link-b');
  assert.is((await get(moved)).status, 404, 'a signature of another link');
  assert.is((await get(share('link-a').replace('/files/s/link-a', '/files'))).status, 404, 'not a library URL');
  assert.is(
    (await get(pathOf(key).replace('/files/', '/files/s/link-a/'))).status,
    404,
    'a library one is not a share one',
  );
  liveLinks.delete('link-a');
  const gone = await get(share('link-a'));
  assert.is(gone.status, 404, 'revoked');
  assert.equal(await gone.json(), { error: 'Not Found', message: 'file not found' });
  assert.is((await get(share('broken'))).status, 404, 'a failing lookup serves nothing');
});

test('a name segment sets a sanitised Content-Disposition', async () => {
  const res = await get(pathOf(key, 'holiday "clip".mp4'));
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-disposition'), 'inline; filename="holiday clip.mp4"');
  await res.arrayBuffer();
  const res2 = await get(pathOf(key, 'été/../x.mp4'));
  assert.is(
    res2.headers.get('content-disposition'),
    `inline; filename="_t_..x.mp4"; filename*=UTF-8''%C3%A9t%C3%A9..x.mp4`,
  );
  await res2.arrayBuffer();
});

test('Range requests: 206 with Content-Range for a-b, a- and -n', async () => {
  const cases: Array<[string, string, string]> = [
    ['bytes=0-3', '0123', 'bytes 0-3/20'],
    ['bytes=10-', 'abcdefghij', 'bytes 10-19/20'],
    ['bytes=-5', 'fghij', 'bytes 15-19/20'],
    ['bytes=18-100', 'ij', 'bytes 18-19/20'],
    ['bytes=-100', content.toString(), 'bytes 0-19/20'],
  ];
  for (const [range, body, cr] of cases) {
    const res = await get(pathOf(key), { Range: range });
    assert.is(res.status, 206, range);
    assert.is(await res.text(), body, range);
    assert.is(res.headers.get('content-range'), cr, range);
    assert.is(res.headers.get('content-length'), String(body.length), range);
  }
});

test('unsatisfiable range → 416 with bytes */size; odd ranges are ignored (200)', async () => {
  for (const range of ['bytes=20-', 'bytes=100-200', 'bytes=-0']) {
    const res = await get(pathOf(key), { Range: range });
    assert.is(res.status, 416, range);
    assert.is(res.headers.get('content-range'), 'bytes */20');
    await res.arrayBuffer();
  }
  for (const range of ['bytes=0-1,4-5', 'items=0-3', 'bytes=5-2', 'garbage']) {
    const res = await get(pathOf(key), { Range: range });
    assert.is(res.status, 200, range);
    assert.is((await res.arrayBuffer()).byteLength, 20);
  }
  const stale = await get(pathOf(key), { Range: 'bytes=0-3', 'If-Range': '"something-else"' });
  assert.is(stale.status, 200, 'If-Range mismatch sends the whole file');
  await stale.arrayBuffer();
});

test('If-None-Match → 304', async () => {
  const etag = `"${key.slice(0, 64)}"`;
  for (const inm of [etag, `W/${etag}`, `"zzz", ${etag}`, '*']) {
    const res = await get(pathOf(key), { 'If-None-Match': inm });
    assert.is(res.status, 304, inm);
    assert.is(res.headers.get('etag'), etag);
    assert.is(await res.text(), '');
  }
  const miss = await get(pathOf(key), { 'If-None-Match': '"other"' });
  assert.is(miss.status, 200);
  await miss.arrayBuffer();
});

test('HEAD gives headers and length, no body', async () => {
  const res = await get(pathOf(key), {}, 'HEAD');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-length'), '20');
  assert.is(res.headers.get('content-type'), 'video/mp4');
  assert.is(await res.text(), '');
  const ranged = await get(pathOf(key), { Range: 'bytes=0-9' }, 'HEAD');
  assert.is(ranged.status, 206);
  assert.is(ranged.headers.get('content-length'), '10');
});

test('an empty file is served as 200 with length 0', async () => {
  const res = await get(pathOf(emptyKey));
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-length'), '0');
  assert.is(res.headers.get('content-type'), 'image/jpeg');
  assert.is(await res.text(), '');
});

test('bad signature, unknown key, malformed key, traversal → 404 JSON', async () => {
  const sig = urls.sign(key);
  const unknown = `${'0'.repeat(64)}.jpg`;
  const paths = [
    `/files/${'A'.repeat(22)}/${key}`,
    `/files/${sig}/${key.replace('.mp4', '.jpg')}`,
    `/files/${urls.sign(unknown)}/${unknown}`,
    `/files/${sig}/..%2F..%2Fetc%2Fpasswd`,
    `/files/${sig}`,
    `/files/${sig}/${key}/a/b`,
    `/files/`,
  ];
  for (const p of paths) {
    const res = await get(p);
    assert.is(res.status, 404, p);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const body = (await res.json()) as { error: string; message: string };
    assert.is(body.error, 'Not Found', p);
    assert.type(body.message, 'string');
    assert.is(res.headers.get('cache-control'), null);
  }
});

test('other methods are refused; other paths pass through', async () => {
  const res = await get(pathOf(key), {}, 'DELETE');
  assert.is(res.status, 405);
  assert.is(res.headers.get('allow'), 'GET, HEAD');
  await res.arrayBuffer();
  const other = await get('/api/whatever');
  assert.equal(await other.json(), { passedThrough: '/api/whatever' });
  const similar = await get('/filesystem');
  assert.equal(await similar.json(), { passedThrough: '/filesystem' });
});

test('parseRange and contentDisposition units', () => {
  assert.equal(parseRange('bytes=0-0', 1), { start: 0, end: 0 });
  assert.is(parseRange('bytes=0-', 0), 'unsatisfiable');
  assert.is(parseRange('bytes=-', 10), null);
  assert.is(contentDisposition('\u0000"/\\'), 'inline');
  assert.is(contentDisposition('a\r\nSet-Cookie: x'), 'inline; filename="aSet-Cookie: x"');
});

test.run();
