/**
 * The request edge (issue #16): bodies that do not decompress, deeply nested JSON, methods the server does
 * not know, bodies read only after authentication, and multipart refusals that leave nothing in DATA_DIR/tmp.
 */
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_JSON_DEPTH } from '../../src/http/bodies.js';
import { MAX_METADATA_BYTES } from '../../src/features/library/routes/schemas.js';
import { makeImage, startTestApp, TEST_KEY, type TestApp } from '../helpers/testApp.js';

const t = suite<{ app: TestApp; ds: string; mediaId: string; folderId: string }>('request edge');

t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  ctx.ds = await ctx.app.collection('Edge');
  const up = await ctx.app.upload(
    { datasetId: ctx.ds, name: 'a.png' },
    { bytes: await makeImage({ format: 'png' }), filename: 'a.png' },
  );
  assert.is(up.status, 200, JSON.stringify(up.body));
  ctx.mediaId = up.body.mediaId;
  const folder = await ctx.app.request('POST', '/api/folder', { body: { datasetId: ctx.ds, name: 'F' } });
  assert.is(folder.status, 200, JSON.stringify(folder.body));
  ctx.folderId = folder.body.folder.id;
});
t.after(async (ctx) => ctx.app.close());

async function send(app: TestApp, method: string, url: string, body: Buffer | string, headers: Record<string, string>) {
  const res = await fetch(app.baseUrl + url, { method, headers, body });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Any method, even those fetch refuses (TRACE), through node:http. */
function rawMethod(app: TestApp, method: string, url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const req = http.request(app.baseUrl + url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const tmpEntries = (dataDir: string) =>
  existsSync(path.join(dataDir, 'tmp')) ? readdirSync(path.join(dataDir, 'tmp')) : [];

t(
  'a body that does not decompress answers 400 naming the encoding; valid gzip works; unknown encoding 415',
  async ({ app, mediaId }) => {
    const url = `/api/media/${mediaId}`;
    const json = { 'content-type': 'application/json', 'x-api-key': TEST_KEY };
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const r = await send(app, 'PATCH', url, Buffer.from('{"name":"not compressed at all"}'), {
        ...json,
        'content-encoding': encoding,
      });
      assert.is(r.status, 400, `${encoding}: ${JSON.stringify(r.body)}`);
      assert.is(r.body.error, 'Bad Request');
      assert.match(r.body.message, encoding);
      // Without a key the body is never read: 401, not 500.
      const anon = await send(app, 'PATCH', url, Buffer.from('garbage'), {
        'content-type': 'application/json',
        'content-encoding': encoding,
      });
      assert.is(anon.status, 401, `${encoding} without a key: ${JSON.stringify(anon.body)}`);
    }
    const gz = await send(app, 'PATCH', url, gzipSync(JSON.stringify({ name: 'gzipped.png' })), {
      ...json,
      'content-encoding': 'gzip',
    });
    assert.is(gz.status, 200, JSON.stringify(gz.body));
    assert.is(gz.body.media?.name ?? gz.body.name, 'gzipped.png');
    const br = await send(app, 'PATCH', url, brotliCompressSync(JSON.stringify({ name: 'brotli.png' })), {
      ...json,
      'content-encoding': 'br',
    });
    assert.is(br.status, 200, JSON.stringify(br.body));
    const unknown = await send(app, 'PATCH', url, Buffer.from('{}'), { ...json, 'content-encoding': 'zstd-ish' });
    assert.is(unknown.status, 415, JSON.stringify(unknown.body));
  },
);

t('deeply nested JSON and oversized metadata answer 400 and store nothing', async ({ app, mediaId, folderId }) => {
  const deep = '{"metadata":{"x":' + '['.repeat(4100) + ']'.repeat(4100) + '}}';
  for (const url of [`/api/media/${mediaId}`, `/api/folder/${folderId}`]) {
    const before = await app.request('GET', url);
    const r = await app.request('PATCH', url, { body: deep });
    assert.is(r.status, 400, `${url}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.message, String(MAX_JSON_DEPTH));
    const big = await app.request('PATCH', url, { body: { metadata: { x: 'y'.repeat(MAX_METADATA_BYTES) } } });
    assert.is(big.status, 400, `${url}: ${JSON.stringify(big.body)}`);
    assert.match(big.body.message, 'metadata');
    assert.equal((await app.request('GET', url)).body, before.body, `${url}: nothing stored`);
  }
  // Nesting at the limit is fine; the same limit holds for every JSON body.
  const ok = (n: number) => '{"metadata":{"x":' + '['.repeat(n) + ']'.repeat(n) + '}}';
  assert.is((await app.request('PATCH', `/api/media/${mediaId}`, { body: ok(MAX_JSON_DEPTH - 2) })).status, 200);
  const other = await app.request('POST', '/api/folder', { body: deep });
  assert.is(other.status, 400, JSON.stringify(other.body));
});

t(
  'unknown methods answer in the JSON error shape: 405 with Allow on a known path, 501 elsewhere',
  async ({ app, mediaId }) => {
    for (const method of ['PROPFIND', 'LOCK', 'TRACE']) {
      const known = await rawMethod(app, method, `/api/media/${mediaId}`, { 'x-api-key': TEST_KEY });
      assert.is(known.status, 405, `${method}: ${JSON.stringify(known.body)}`);
      assert.is(known.body.error, 'Method Not Allowed');
      assert.match(String(known.headers.allow), 'GET');
      const unknown = await rawMethod(app, method, '/no/such/path', {});
      assert.is(unknown.status, 501, `${method}: ${JSON.stringify(unknown.body)}`);
      assert.is(unknown.body.error, 'Not Implemented');
      assert.type(unknown.body.message, 'string');
      const files = await rawMethod(app, method, '/files/x/y', {});
      assert.is(files.status, 405);
      assert.is(files.body.error, 'Method Not Allowed');
    }
  },
);

/** Sends `total` bytes of a JSON body slowly-enough, returning the status and how many bytes went out before it. */
function sendLarge(app: TestApp, url: string, total: number, headers: Record<string, string>) {
  return new Promise<{ status: number; sent: number }>((resolve, reject) => {
    const req = http.request(app.baseUrl + url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(total), ...headers },
    });
    let sent = 0;
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, sent });
      req.destroy();
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

t('bodies are read after authentication: 401 before the client has finished sending', async ({ app }) => {
  const total = 40 * 1024 * 1024;
  const started = Date.now();
  const anon = await sendLarge(app, '/api/folder', total, {});
  assert.is(anon.status, 401);
  assert.ok(anon.sent < total / 4, `answered after ${anon.sent} of ${total} bytes`);
  assert.ok(Date.now() - started < 5_000, 'answered quickly');
  const badKey = await sendLarge(app, '/api/folder', total, { 'x-api-key': 'wrong-key' });
  assert.is(badKey.status, 401);
  assert.ok(badKey.sent < total / 4, `answered after ${badKey.sent} of ${total} bytes`);
});

t(
  'multipart refusals answer 400 naming the reason (413 only for size) and leave nothing in tmp',
  async ({ app, ds }) => {
    const png = await makeImage({ format: 'png' });
    const post = async (form: FormData) => {
      const res = await fetch(app.baseUrl + '/api/upload/multipart', {
        method: 'POST',
        headers: { 'x-api-key': TEST_KEY },
        body: form,
      });
      return { status: res.status, body: (await res.json()) as { error: string; message: string } };
    };
    const twoFiles = new FormData();
    twoFiles.append('datasetId', ds);
    twoFiles.append('file', new Blob([png]), 'one.png');
    twoFiles.append('file2', new Blob([png]), 'two.png');
    let r = await post(twoFiles);
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.match(r.body.message, 'more than one file');

    const manyFields = new FormData();
    manyFields.append('datasetId', ds);
    manyFields.append('file', new Blob([png]), 'one.png');
    for (let i = 0; i < 30; i++) manyFields.append(`f${i}`, 'v');
    manyFields.append('file3', new Blob([png]), 'three.png');
    r = await post(manyFields);
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.match(r.body.message, 'too many form fields');

    const bigField = new FormData();
    bigField.append('datasetId', ds);
    bigField.append('file', new Blob([png]), 'one.png');
    bigField.append('note', 'x'.repeat(2 * 1024 * 1024));
    r = await post(bigField);
    assert.is(r.status, 413, JSON.stringify(r.body));

    // No refusal leaves a file behind, not even a tick later.
    await new Promise((res) => setTimeout(res, 50));
    assert.equal(tmpEntries(app.dataDir), []);
  },
);

t(
  'a URL over the header limit, or a search text over its limit, gets a JSON refusal naming the limit',
  async ({ app }) => {
    const long = await fetch(app.baseUrl + '/api/search?q=' + 'a'.repeat(20_000), {
      headers: { 'x-api-key': TEST_KEY },
    });
    assert.is(long.status, 431);
    const body = (await long.json()) as { error: string; message: string };
    assert.match(body.message, `over ${http.maxHeaderSize} bytes`);
    const me = await app.request('GET', '/api/me');
    const q = 'a'.repeat(10_000);
    const search = await app.request('GET', `/api/search?organizationId=${me.body.organizationId}&q=${q}`);
    assert.is(search.status, 400);
    assert.match(search.body.message, 'at most 1,000 characters');
  },
);

t('multipart fields named __proto__ or constructor are ignored, not merged into anything', async ({ app, ds }) => {
  const form = new FormData();
  form.append('datasetId', ds);
  form.append('__proto__', '{"polluted":true}');
  form.append('constructor', 'x');
  form.append('file', new Blob([await makeImage({ format: 'png', color: { r: 7, g: 70, b: 170 } })]), 'proto.png');
  const res = await fetch(app.baseUrl + '/api/upload/multipart', {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY },
    body: form,
  });
  assert.is(res.status, 200, await res.text());
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

t.run();
