import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeImage, startTestApp, TEST_KEY, type TestApp } from '../helpers/testApp.js';

/** GET over node:http, so the Host header can be set (fetch sets its own). */
function get(app: TestApp, path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const { port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { 'x-api-key': TEST_KEY, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
}

async function uploaded(app: TestApp): Promise<string> {
  const ds = await app.collection();
  const up = await app.upload({ datasetId: ds, name: 'lan.jpg' }, { bytes: await makeImage(), filename: 'lan.jpg' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  return up.body.mediaId;
}

const links = (m: any): string[] => [m.blob, ...m.frames.map((f: any) => f.blob)];

const t = suite('file URLs without PUBLIC_URL: the host the request came to (issue #14)');

t('a request to 192.168.1.20:3000 gets links on that host; another host, its own', async () => {
  const app = await startTestApp({ publicUrl: undefined });
  try {
    const id = await uploaded(app);
    const lan = await get(app, `/api/media/${id}`, { host: '192.168.1.20:3000' });
    assert.is(lan.status, 200, JSON.stringify(lan.body));
    for (const u of links(lan.body.media)) assert.match(u, /^http:\/\/192\.168\.1\.20:3000\/files\//);
    const local = await app.request('GET', `/api/media/${id}`);
    for (const u of links(local.body.media)) assert.ok(u.startsWith(`${app.baseUrl}/files/`), u);
    // The link works from the machine that asked (here: the same server under another name).
    const path = new URL(lan.body.media.blob).pathname;
    assert.is((await fetch(app.baseUrl + path)).status, 200);
    // Behind a reverse proxy: X-Forwarded-Proto/Host, as koa's ctx.origin reads them (app.proxy).
    const proxied = await get(app, `/api/media/${id}`, {
      host: '10.0.0.5:3000',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'media.example.lan',
    });
    assert.match(proxied.body.media.blob, /^https:\/\/media\.example\.lan\/files\//);
    const doc = await get(app, '/api/openapi.json', { host: '192.168.1.20:3000' });
    assert.equal(doc.body.servers, [{ url: 'http://192.168.1.20:3000' }]);
    // A Host that is not a plain host name falls back to localhost on the server's port.
    const odd = await get(app, `/api/media/${id}`, { host: 'bad host"<x>' });
    assert.match(odd.body.media.blob ?? '', new RegExp(`^http://localhost:${new URL(app.baseUrl).port}/files/`));
  } finally {
    await app.close();
  }
});

t('PUBLIC_URL still wins', async () => {
  const app = await startTestApp({}, {});
  try {
    const id = await uploaded(app);
    const lan = await get(app, `/api/media/${id}`, { host: '192.168.1.20:3000' });
    assert.is(lan.status, 200);
    for (const u of links(lan.body.media)) assert.ok(u.startsWith(`${app.baseUrl}/files/`), u);
    const doc = await get(app, '/api/openapi.json', { host: '192.168.1.20:3000' });
    assert.equal(doc.body.servers, [{ url: app.baseUrl }]);
  } finally {
    await app.close();
  }
});

t.run();
