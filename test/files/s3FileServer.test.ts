/**
 * The file server over the S3 store (s3rver on 127.0.0.1): whole files, byte ranges (206 + Content-Range),
 * renditions, and with S3_PRESIGNED_GETS a redirect to a presigned GET that the store itself answers.
 */
import Koa from 'koa';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BlobStore } from '../../src/files/blobStore.js';
import { fileServerMiddleware } from '../../src/files/fileServer.js';
import { FileUrls } from '../../src/files/fileUrls.js';
import { startS3 } from './s3Server.js';

const s3 = await startS3();
const urls = new FileUrls('test-secret', 'http://placeholder');
const content = Buffer.from('0123456789abcdefghij'); // 20 bytes

type Harness = Awaited<ReturnType<typeof s3.harness>>;
const test = suite<{ h: Harness; server: Server; base: string }>('file server over S3');

async function serve(store: BlobStore): Promise<{ server: Server; base: string }> {
  const app = new Koa();
  app.use(fileServerMiddleware({ store, urls }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test.before.each(async (ctx) => {
  ctx.h = await s3.harness();
  await ctx.h.store.init();
  Object.assign(ctx, await serve(ctx.h.store));
});
test.after.each(async ({ h, server }) => {
  await new Promise((r) => server.close(r));
  await h.close();
});
test.after(() => s3.stop());

const pathOf = (key: string, name?: string) => new URL(urls.urlFor(key, name)).pathname;

test('GET serves an S3 blob whole, with type, length and a strong ETag', async ({ h, base }) => {
  const { key } = await h.store.putBuffer(content, 'mp4');
  const res = await fetch(base + pathOf(key));
  assert.is(res.status, 200);
  assert.equal(Buffer.from(await res.arrayBuffer()), content);
  assert.is(res.headers.get('content-type'), 'video/mp4');
  assert.is(res.headers.get('content-length'), '20');
  assert.is(res.headers.get('etag'), `"${key.slice(0, 64)}"`);
});

test('a Range answers 206 with Content-Range; a suffix range too; outside the file 416', async ({ h, base }) => {
  const { key } = await h.store.putBuffer(content, 'mp4');
  const res = await fetch(base + pathOf(key), { headers: { Range: 'bytes=2-5' } });
  assert.is(res.status, 206);
  assert.is(res.headers.get('content-range'), 'bytes 2-5/20');
  assert.is(res.headers.get('content-length'), '4');
  assert.is(await res.text(), '2345');
  const tail = await fetch(base + pathOf(key), { headers: { Range: 'bytes=-3' } });
  assert.is(tail.status, 206);
  assert.is(tail.headers.get('content-range'), 'bytes 17-19/20');
  assert.is(await tail.text(), 'hij');
  const outside = await fetch(base + pathOf(key), { headers: { Range: 'bytes=20-' } });
  assert.is(outside.status, 416);
  assert.is(outside.headers.get('content-range'), 'bytes */20');
});

test('HEAD, If-None-Match and a missing blob need no body from the store', async ({ h, base }) => {
  const { key } = await h.store.putBuffer(content, 'mp4');
  const head = await fetch(base + pathOf(key), { method: 'HEAD', headers: { Range: 'bytes=0-9' } });
  assert.is(head.status, 206);
  assert.is(head.headers.get('content-length'), '10');
  const cached = await fetch(base + pathOf(key), { headers: { 'If-None-Match': `"${key.slice(0, 64)}"` } });
  assert.is(cached.status, 304);
  await h.store.remove(key);
  const gone = await fetch(base + pathOf(key));
  assert.is(gone.status, 404);
});

test('a rendition (WebP thumbnail) is served from S3 with its type', async ({ h, base }) => {
  const webp = Buffer.from('RIFF\x1a\x00\x00\x00WEBPVP8 fake rendition bytes', 'latin1');
  const { key } = await h.store.putBuffer(webp, 'webp');
  const res = await fetch(base + pathOf(key));
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/webp');
  assert.equal(Buffer.from(await res.arrayBuffer()), webp);
});

test('S3_PRESIGNED_GETS: GET redirects to a presigned URL the store answers, ranges included', async ({ server }) => {
  const h = await s3.harness({ presignedGets: true });
  await h.store.init();
  const presigning = await serve(h.store);
  try {
    const { key } = await h.store.putBuffer(content, 'mp4');
    const res = await fetch(presigning.base + pathOf(key, 'clip.mp4'), { redirect: 'manual' });
    assert.is(res.status, 302);
    assert.match(res.headers.get('cache-control') ?? '', /^private, max-age=\d+$/);
    const location = res.headers.get('location')!;
    assert.ok(location.startsWith(`${s3.endpoint}/${h.bucket}/${key}?`), location);
    assert.match(location, /X-Amz-Signature=/);
    const again = await fetch(presigning.base + pathOf(key, 'clip.mp4'), { redirect: 'manual' });
    assert.is(again.headers.get('location'), location, 'one URL per signing window: cacheable');
    const direct = await fetch(location);
    assert.is(direct.status, 200);
    assert.equal(Buffer.from(await direct.arrayBuffer()), content);
    assert.is(direct.headers.get('content-type'), 'video/mp4');
    assert.match(direct.headers.get('content-disposition') ?? '', /clip\.mp4/);
    const ranged = await fetch(location, { headers: { Range: 'bytes=2-5' } });
    assert.is(ranged.status, 206);
    assert.is(await ranged.text(), '2345');
    // HEAD is still answered here (a presigned GET does not sign a HEAD).
    const head = await fetch(presigning.base + pathOf(key), { method: 'HEAD' });
    assert.is(head.status, 200);
    assert.is(head.headers.get('content-length'), '20');
  } finally {
    await new Promise((r) => presigning.server.close(r));
    await h.close();
  }
  assert.ok(server.listening);
});

test.run();
