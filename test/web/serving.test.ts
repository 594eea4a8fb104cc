/** How the server serves the web application: caching, the SPA fallback, and its Content-Security-Policy. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildWeb, JS_BUDGET_GZIP_BYTES } from '../../scripts/build-web.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';

let t: TestApp;
let jsGzip = 0;

test.before(async () => {
  const built = await buildWeb(mkdtempSync(path.join(os.tmpdir(), 'mlib-web-')));
  jsGzip = built.jsGzipBytes;
  t = await startTestApp({ webDir: built.outdir });
});
test.after(async () => t.close());

const get = (url: string, init: RequestInit = {}) => fetch(t.baseUrl + url, init);

test('the page: index.html, no-cache, a strict CSP, and hashed assets it names', async () => {
  const res = await get('/');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  assert.is(res.headers.get('cache-control'), 'no-cache');
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.not.match(csp, /unsafe-inline|unsafe-eval|\*/);
  const html = await res.text();
  assert.not.match(html, /<script>(?!<)/, 'no inline script');
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  assert.is(assets.length, 2, 'one script and one stylesheet');
  for (const asset of assets) {
    const a = await get(asset);
    assert.is(a.status, 200, asset);
    assert.is(a.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  }
  assert.not.match(html, /https?:\/\//, 'nothing named from another origin');
});

test('every other GET outside /api, /files and /healthz is the page (deep links work)', async () => {
  for (const url of ['/c/abc', '/m/123?t=4', '/account', '/setup?token=x']) {
    const res = await get(url);
    assert.is(res.status, 200, url);
    assert.match(await res.text(), /<div id="app">/, url);
  }
});

test('server paths keep their own answers', async () => {
  const api = await get('/api/nope');
  assert.is(api.status, 404);
  assert.match(api.headers.get('content-type') ?? '', /json/);
  assert.is((await get('/healthz')).status, 200);
  assert.is((await get('/files/nothing')).status === 200, false);
  assert.is((await get('/assets/app-OLDHASH.js')).status, 404, 'a stale asset is a 404, not the page');
  assert.is((await get('/', { method: 'POST' })).status, 404, 'only GET and HEAD get the page');
});

test('a request path never reaches the disk outside the built folder', async () => {
  for (const url of ['/../package.json', '/assets/../../package.json', '/%2e%2e/package.json']) {
    const res = await get(url);
    assert.not.match(await res.text(), /"name": "lumen-library"/, url);
  }
});

test('the initial JavaScript is within its budget', () => {
  assert.ok(jsGzip > 0 && jsGzip <= JS_BUDGET_GZIP_BYTES, `${jsGzip} bytes gzip`);
});

test.run();
