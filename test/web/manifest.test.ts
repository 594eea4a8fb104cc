/** The installable app: index.html links a valid web app manifest and theme colours; its icons are served under the page's CSP. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildWeb } from '../../scripts/build-web.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';

let t: TestApp;

test.before(async () => {
  const built = await buildWeb(mkdtempSync(path.join(os.tmpdir(), 'mlib-web-')));
  t = await startTestApp({ webDir: built.outdir });
});
test.after(async () => t.close());

const get = (url: string) => fetch(t.baseUrl + url);

/** A PNG's width and height from its IHDR chunk. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.equal([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG signature');
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

test('index.html links the manifest, an apple-touch-icon and a theme colour for light and dark', async () => {
  const html = await (await get('/')).text();
  assert.match(html, /<link rel="manifest" href="\/manifest.webmanifest"/);
  assert.match(html, /<link rel="apple-touch-icon" href="\/icon-192.png"/);
  assert.match(html, /name="theme-color" content="#[0-9a-f]{6}" media="\(prefers-color-scheme: light\)"/);
  assert.match(html, /name="theme-color" content="#[0-9a-f]{6}" media="\(prefers-color-scheme: dark\)"/);
  assert.match(html, /name="viewport" content="width=device-width, initial-scale=1"/);
});

test('the manifest is served as application/manifest+json under the CSP, and is valid', async () => {
  const res = await get('/manifest.webmanifest');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/manifest\+json/);
  assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  assert.is(res.headers.get('cache-control'), 'no-cache');
  const m = (await res.json()) as any;
  assert.type(m.name, 'string');
  assert.ok(m.short_name.length > 0 && m.short_name.length <= 12, 'a short name fits under an icon');
  assert.is(m.start_url, '/');
  assert.is(m.scope, '/');
  assert.ok(['standalone', 'fullscreen', 'minimal-ui'].includes(m.display), m.display);
  assert.match(m.theme_color, /^#[0-9a-f]{6}$/i);
  assert.match(m.background_color, /^#[0-9a-f]{6}$/i);
  const sizes = m.icons.map((i: { sizes: string }) => i.sizes);
  for (const want of ['192x192', '512x512', 'any']) assert.ok(sizes.includes(want), `an icon of ${want}`);
  assert.ok(
    m.icons.some((i: { purpose?: string }) => i.purpose === 'maskable'),
    'a maskable icon',
  );
  for (const icon of m.icons as Array<{ src: string; sizes: string; type: string }>) {
    assert.ok(icon.src.startsWith('/'), 'same origin');
    const got = await get(icon.src);
    assert.is(got.status, 200, icon.src);
    assert.is(got.headers.get('content-type'), icon.type, icon.src);
    if (icon.type !== 'image/png') continue;
    const { width, height } = pngSize(new Uint8Array(await got.arrayBuffer()));
    assert.is(`${width}x${height}`, icon.sizes, icon.src);
  }
});

test.run();
