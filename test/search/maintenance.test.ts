import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeImage, startTestApp, waitForProcessing } from '../helpers/testApp.js';

/**
 * A database whose embeddings have no vector index (one from before the
 * index, or an index lost): the server builds it at start-up by itself, and
 * warms the in-memory copies, so search finds the items without an operator.
 */
test('start-up builds a missing vector index and warms it', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'maint-data-'));
  let app = await startTestApp({ dataDir });
  let ds = '';
  let red = '';
  let modelId = '';
  try {
    ds = await app.collection('Maintenance');
    red = (
      await app.upload(
        { datasetId: ds, name: 'a.jpg' },
        { bytes: await makeImage({ color: { r: 220, g: 20, b: 20 } }), filename: 'a.jpg' },
      )
    ).body.mediaId;
    const blue = (
      await app.upload(
        { datasetId: ds, name: 'b.jpg' },
        { bytes: await makeImage({ color: { r: 20, g: 30, b: 220 } }), filename: 'b.jpg' },
      )
    ).body.mediaId;
    await waitForProcessing(app, red);
    await waitForProcessing(app, blue);
    modelId = app.app.services.models.modelInfo().id;
    await app.app.services.indexes.vectors.dropModel(modelId);
    assert.equal(await app.app.services.indexes.vectors.unindexedModels(), [modelId]);
  } finally {
    await app.close();
  }

  app = await startTestApp({ dataDir, ingestConcurrency: 0 });
  try {
    const vectors = app.app.services.indexes.vectors;
    for (let i = 0; i < 100 && (await vectors.unindexedModels()).length; i++)
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(await vectors.unindexedModels(), [], 'the index was rebuilt at start-up');
    const [stat] = await vectors.stats(modelId);
    assert.ok(stat.rows >= 2, `rows ${stat.rows}`);
    for (let i = 0; i < 100 && (await vectors.stats(modelId))[0].cachedRows < stat.rows; i++)
      await new Promise((r) => setTimeout(r, 50));
    assert.is((await vectors.stats(modelId))[0].cachedRows, stat.rows, 'every int8 copy is in memory');
    // Embedding-only evidence (file names say nothing of colour): the vectors answer.
    const found = await app.request('GET', `/api/dataset/${ds}/media?q=red&minScore=0.5`);
    assert.is(found.status, 200, JSON.stringify(found.body));
    assert.equal(
      found.body.media.map((m: { id: string }) => m.id),
      [red],
    );
  } finally {
    await app.close();
  }
});

test.run();
