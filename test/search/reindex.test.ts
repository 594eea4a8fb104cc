import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { startTestApp, waitForProcessing } from '../helpers/testApp.js';

/**
 * Changing the embedding model: items indexed with the old model stay
 * findable while the re-index runs (search uses the old model until the new
 * one covers everything), and afterwards search uses the new model.
 */
test('re-index to a new embedding model: search answers from the old vectors until the new ones are complete', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'reindex-data-'));
  const modelsDir = mkdtempSync(path.join(os.tmpdir(), 'reindex-models-'));
  const red = await sharp({ create: { width: 80, height: 60, channels: 3, background: { r: 220, g: 20, b: 20 } } })
    .jpeg()
    .toBuffer();
  const blue = await sharp({ create: { width: 80, height: 60, channels: 3, background: { r: 20, g: 30, b: 220 } } })
    .jpeg()
    .toBuffer();
  let app = await startTestApp({ dataDir, modelsDir });
  let ds: string;
  const ids: string[] = [];
  try {
    ds = await app.collection('Reindex');
    for (const [name, bytes] of [
      ['r.jpg', red],
      ['b.jpg', blue],
    ] as const)
      ids.push((await app.upload({ datasetId: ds, name }, { bytes, filename: name })).body.mediaId);
    for (const id of ids) await waitForProcessing(app, id);
  } finally {
    await app.close();
  }
  // The operator switches the default embedder (768-d → the 512-d model).
  writeFileSync(
    path.join(modelsDir, 'catalog.local.json'),
    JSON.stringify({ version: 1, roles: { test: { embed: 'clip-vit-b32' } } }),
  );
  app = await startTestApp({ dataDir, modelsDir, ingestConcurrency: 0 });
  try {
    // No re-index yet: the new model covers nothing, so search answers from the old vectors.
    const before = await app.request('GET', `/api/dataset/${ds}/media?q=red&minScore=0.5`);
    assert.is(before.status, 200, JSON.stringify(before.body));
    assert.equal(
      before.body.media.map((m: { id: string }) => m.id),
      [ids[0]],
    );
    const used = await import('../../src/features/search/scoring.js').then((m) =>
      m.searchModel(app.app.services, [ds]),
    );
    assert.is(used.name, 'default', 'the old model answers while the new one covers nothing');
    const sim = await app.request('GET', `/api/dataset/${ds}/media?q=blue&minScore=0.5`);
    assert.equal(
      sim.body.media.map((m: { id: string }) => m.id),
      [ids[1]],
    );
  } finally {
    await app.close();
  }
  app = await startTestApp({ dataDir, modelsDir });
  try {
    const r = await app.request('POST', '/api/admin/reindex');
    assert.is(r.status, 202, JSON.stringify(r.body));
    assert.is(r.body.queued, 2);
    assert.match(r.body.model, /^clip-vit-b32:/);
    const coverage = () => app.app.services.indexes.vectors.coverage(r.body.model, [ds], 'objects');
    for (let i = 0; i < 600 && (await coverage()).fraction < 1; i++) await new Promise((res) => setTimeout(res, 100));
    assert.is((await coverage()).fraction, 1, 'the new model covers every object');
    const after = await app.request('GET', `/api/dataset/${ds}/media?q=red&minScore=0.5`);
    assert.equal(
      after.body.media.map((m: { id: string }) => m.id),
      [ids[0]],
    );
    const model = await import('../../src/features/search/scoring.js').then((m) =>
      m.searchModel(app.app.services, [ds]),
    );
    assert.is(model.name, 'clip-vit-b32', 'search switched to the new model');
    const viewer = (await app.request('POST', '/api/keys', { body: { role: 'member' } })).body.key;
    assert.is((await app.request('POST', '/api/admin/reindex', { key: viewer })).status, 403);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(modelsDir, { recursive: true, force: true });
  }
});

test.run();
