/**
 * The worker pool's bounded queue (rate_limited with Retry-After), batching of
 * queued requests, and the memory budget's LRU unloading.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../src/platform/errors.js';
import { loadCatalog } from '../../src/models/catalog.js';
import { createVisionModels } from '../../src/models/visionModels.js';
import { WorkerPool } from '../../src/models/worker/pool.js';
import type { WorkerSetup } from '../../src/models/worker/protocol.js';
import { memoryLogger, solid, tempModelsDir, testConfig } from './helpers.js';

const tmp = tempModelsDir();
test.after(() => tmp.cleanup());

function setup(memoryBudgetMB: number | null = null): WorkerSetup {
  const catalog = loadCatalog({ modelsDir: tmp.dir });
  return {
    modelsDir: tmp.dir,
    profile: 'test',
    device: 'cpu',
    memoryBudgetMB,
    maxImagePixels: 1e8,
    nice: 0,
    entries: [...catalog.models.values()],
    pinned: ['default:text'],
  };
}

test('queue full → rate_limited with retryAfterSeconds; queued jobs still complete', async () => {
  const pool = new WorkerPool({ setup: setup(), logger: memoryLogger(), maxQueue: 3 });
  try {
    // The worker is still starting, so these all wait in the queue.
    const accepted = [1, 2, 3].map((i) => pool.submit('embedTexts', 'default', [`text ${i}`]));
    let error: unknown;
    try {
      await pool.submit('embedTexts', 'default', ['one too many']);
    } catch (err) {
      error = err;
    }
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'rate_limited');
    const retry = (error as DomainError).details.retryAfterSeconds;
    assert.ok(typeof retry === 'number' && retry >= 1, `retryAfterSeconds ${retry}`);
    const results = await Promise.all(accepted);
    assert.ok(results.every((r) => r.length === 1 && (r[0] as Float32Array).length === 768));
  } finally {
    await pool.close();
  }
});

test('queued requests of the same kind and model are merged into one batch', async () => {
  const pool = new WorkerPool({ setup: setup(), logger: memoryLogger(), maxBatch: { embedTexts: 64 } });
  try {
    const jobs = Array.from({ length: 10 }, (_, i) =>
      pool.submit('embedTexts', 'clip-vit-b32', [`red ${i}`, `blue ${i}`]),
    );
    const other = pool.submit('embedTexts', 'default', ['green']);
    const results = await Promise.all(jobs);
    await other;
    assert.ok(results.every((r) => r.length === 2));
    // 10 clip jobs → one batch; the default-model job → its own batch.
    assert.is(pool.stats().batches, 2);
    // Outputs go back to the right caller: job i's first vector is "red", second "blue".
    const [red, blue] = results[7] as Float32Array[];
    const [red0] = results[0] as Float32Array[];
    assert.ok(red.reduce((s, x, i) => s + x * red0[i], 0) > 0.9);
    assert.ok(red.reduce((s, x, i) => s + x * blue[i], 0) < 0.5);
  } finally {
    await pool.close();
  }
});

test('a text embedding (a search) is served before image work queued ahead of it', async () => {
  const pool = new WorkerPool({ setup: setup(), logger: memoryLogger() });
  try {
    const image = await solid('red');
    const order: string[] = [];
    // The worker is still starting: all of these wait in the queue, images first (apart: not one batch).
    const images = [1, 2, 3].map((i) =>
      pool.submit('embedImages', 'default', [image], { seed: i }).then(() => order.push(`image ${i}`)),
    );
    const text = pool.submit('embedTexts', 'default', ['a query']).then(() => order.push('text'));
    await Promise.all([...images, text]);
    assert.is(order[0], 'text', order.join(', '));
  } finally {
    await pool.close();
  }
});

test('close() rejects queued work with unavailable', async () => {
  const pool = new WorkerPool({ setup: setup(), logger: memoryLogger() });
  const pending = pool.submit('embedTexts', 'default', ['x']).then(
    () => 'resolved',
    (err: DomainError) => err.code,
  );
  await pool.close();
  assert.is(await pending, 'unavailable');
});

test('memory budget: LRU idle parts are unloaded, the default text tower never', async () => {
  // Stand-in sizes: default text ≈1.1 MB (pinned), clip-vit-b32 text ≈0.7 MB, default vision ≈35 KB.
  const logger = memoryLogger();
  const models = createVisionModels(testConfig(tmp.dir), logger, { memoryBudgetMB: 1.5 });
  try {
    await models.embedTexts(null, ['red']);
    await models.embedImages(null, [
      Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC',
        'base64',
      ),
    ]);
    assert.equal(
      models
        .loadedModels()
        .map((m) => `${m.name}:${m.part}`)
        .sort(),
      ['default:text', 'default:vision'],
    );
    await models.embedTexts('clip-vit-b32', ['red']); // over budget now
    const loaded = models.loadedModels();
    assert.ok(
      loaded.some((m) => m.name === 'default' && m.part === 'text' && m.pinned),
      'pinned part kept',
    );
    assert.ok(!loaded.some((m) => m.name === 'default' && m.part === 'vision'), 'least recently used part went first');
    assert.ok(logger.lines.some((l) => l.msg === 'model unloaded (memory budget)'));
    // An unloaded model loads again on demand.
    const [v] = await models.embedTexts('clip-vit-b32', ['blue']);
    assert.is(v.length, 512);
  } finally {
    await models.close();
  }
});

test.run();
