import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, utimesSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { FileUrls } from '../../src/files/fileUrls.js';
import { TempOutputs } from '../../src/files/tempOutputs.js';
import { startTestApp } from '../helpers/testApp.js';

test('same bytes give the same key and URL; the URL is signed in its own namespace', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outputs-'));
  try {
    const urls = new FileUrls('secret', 'http://example.test');
    const outputs = new TempOutputs(dir, urls, 3_600_000);
    await outputs.init();
    const a = await outputs.save(Buffer.from('one'), 'png');
    const b = await outputs.save(Buffer.from('one'), 'png');
    assert.is(a.url, b.url);
    const m = /^http:\/\/example\.test\/files\/out\/([A-Za-z0-9_-]{22})\/([0-9a-f]{64}\.png)$/.exec(a.url);
    assert.ok(m, a.url);
    assert.ok(outputs.verify(m![1], m![2]));
    // A library signature of the same key is not an output signature, nor the other way round.
    assert.not.ok(outputs.verify(urls.sign(m![2]), m![2]));
    assert.not.ok(urls.verify(m![1], m![2]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the sweep removes outputs older than the retention period and keeps fresh ones', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outputs-'));
  try {
    const outputs = new TempOutputs(dir, new FileUrls('secret', 'http://example.test'), 60_000);
    await outputs.init();
    const old = await outputs.save(Buffer.from('old'), 'jpg');
    const fresh = await outputs.save(Buffer.from('fresh'), 'jpg');
    const past = (Date.now() - 120_000) / 1000;
    utimesSync(outputs.store.pathFor(old.key), past, past);
    assert.is(await outputs.sweep(), 1);
    assert.is(await outputs.pathOf(old.key), null);
    assert.ok(existsSync(outputs.store.pathFor(fresh.key)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('outputs are served over HTTP without a key, and a wrong signature is 404', async () => {
  const app = await startTestApp();
  try {
    const png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#f00' } })
      .png()
      .toBuffer();
    const { url } = await app.app.services.outputs.save(png, 'png');
    assert.ok(url.startsWith(`${app.baseUrl}/files/out/`));
    const res = await fetch(url);
    assert.is(res.status, 200);
    assert.is(res.headers.get('content-type'), 'image/png');
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(png));

    const forged = url.replace(/\/out\/[^/]+\//, '/out/AAAAAAAAAAAAAAAAAAAAAA/');
    assert.is((await fetch(forged)).status, 404);
    // The output URL is not a library URL.
    assert.is((await fetch(url.replace('/files/out/', '/files/'))).status, 404);

    // An output URL can be fed back to the AI endpoints (chaining edits), read from disk.
    const embed = await app.request('POST', '/api/ai/embeddings', { body: { image: url } });
    assert.is(embed.status, 200, JSON.stringify(embed.body));
  } finally {
    await app.close();
  }
});

test.run();
