/**
 * Issue 18's speed-ups keep results: the batch window merges concurrent requests into one run and the
 * vectors equal unbatched ones; the frame-vector cache answers with the same vector without a run; a
 * near-duplicate video frame keeps the previous caption while distinct frames keep their own.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createVisionModels } from '../../src/models/visionModels.js';
import { analyzeFrame, isNearDuplicate, newFrameSequence } from '../../src/features/ingest/frameAnalysis.js';
import type { FrameRecord } from '../../src/storage/types.js';
import type { Services } from '../../src/features/kernel/services.js';
import { memoryLogger, solid, tempModelsDir, testConfig, type ColourName } from './helpers.js';

const tmp = tempModelsDir();
test.after(() => tmp.cleanup());

const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const colours: ColourName[] = ['red', 'green', 'blue', 'yellow'];

test('batch window: concurrent embeds share one run, and each vector equals its unbatched one within 1e-4', async () => {
  const images = await Promise.all(colours.map((c) => solid(c)));
  const alone = createVisionModels(testConfig(tmp.dir), memoryLogger(), { embedCacheSize: 0 });
  const batched = createVisionModels(testConfig(tmp.dir), memoryLogger(), { embedCacheSize: 0, batchWindowMs: 50 });
  try {
    const single: Float32Array[] = [];
    for (const image of images) single.push(...(await alone.embedImages('default', [image])));
    await batched.embedImages('default', [await solid('white')]); // load the tower
    const before = batched.workStats!().byKey['embedImages|default'];
    // Submitted in one tick: the first waits in the window, the others join it.
    const together = (await Promise.all(images.map((image) => batched.embedImages('default', [image])))).flat();
    const after = batched.workStats!().byKey['embedImages|default'];
    assert.is(after.batches - before.batches, 1, 'one session run for the four requests');
    assert.is(after.inputs - before.inputs, 4);
    together.forEach((v, i) => assert.ok(maxDiff(v, single[i]) < 1e-4, `${colours[i]}: ${maxDiff(v, single[i])}`));
  } finally {
    await Promise.all([alone.close(), batched.close()]);
  }
});

test('frame-vector cache: the same bytes give the same vector without another run; 0 turns it off', async () => {
  const image = await solid('red');
  const cached = createVisionModels(testConfig(tmp.dir), memoryLogger(), { embedCacheSize: 4 });
  const uncached = createVisionModels(testConfig(tmp.dir), memoryLogger(), { embedCacheSize: 0 });
  try {
    const [first] = await cached.embedImages('default', [image]);
    const runs = cached.workStats!().byKey['embedImages|default'].batches;
    const [again, other] = await cached.embedImages('default', [image, await solid('blue')]);
    assert.equal(Array.from(again), Array.from(first));
    assert.ok(maxDiff(again, other) > 0.1, 'a different image is embedded, not served from the cache');
    assert.is(cached.workStats!().byKey['embedImages|default'].inputs, 2, 'only the new image ran');
    assert.is(cached.workStats!().byKey['embedImages|default'].batches, runs + 1);
    again[0] = 42; // a caller's change does not reach the cache
    assert.is.not((await cached.embedImages('default', [image]))[0][0], 42);
    await uncached.embedImages('default', [image]);
    await uncached.embedImages('default', [image]);
    assert.is(uncached.workStats!().byKey['embedImages|default'].inputs, 2);
  } finally {
    await Promise.all([cached.close(), uncached.close()]);
  }
});

test('isNearDuplicate: at or above the threshold only; null threshold or no previous frame → never', () => {
  const seq = newFrameSequence();
  const a = Float32Array.from([1, 0]);
  const b = Float32Array.from([Math.cos(0.1), Math.sin(0.1)]); // cosine 0.995
  assert.not.ok(isNearDuplicate(seq, a, 0.9), 'no previous frame');
  seq.previous = { vector: a, captions: [], captionText: null };
  assert.ok(isNearDuplicate(seq, b, 0.99));
  assert.not.ok(isNearDuplicate(seq, b, 0.999));
  assert.not.ok(isNearDuplicate(seq, b, null));
  assert.not.ok(isNearDuplicate(undefined, b, 0.5));
});

test('video frames: a repeated frame keeps the previous caption (no captioner run), distinct frames get their own', async () => {
  const models = createVisionModels(testConfig(tmp.dir), memoryLogger());
  const deps = {
    models,
    storage: { analysis: { userObjects: async () => [], frameVector: async () => null } },
    blobs: { putBuffer: async () => ({ key: 'k', size: 1 }) },
  } as unknown as Pick<Services, 'storage' | 'blobs' | 'models'>;
  try {
    assert.is(models.modelInfo().nearDuplicate, 0.98, 'the stand-in embedder declares its threshold');
    const frame = (i: number): FrameRecord =>
      ({ id: `f${i}`, blobKey: 'b', width: 96, height: 64, timestamp: String(i) }) as unknown as FrameRecord;
    const seq = newFrameSequence();
    const texts: (string | null)[] = [];
    for (const [i, colour] of (['red', 'red', 'blue', 'red'] as ColourName[]).entries()) {
      const result = await analyzeFrame(deps, frame(i), await solid(colour), { embed: true, textVectors: false }, seq);
      texts.push(result.captionText);
      assert.is(result.captions.length, 1);
    }
    assert.match(texts[0]!, /red/);
    assert.is(texts[1], texts[0], 'the repeat carries the caption');
    assert.match(texts[2]!, /blue/);
    assert.match(texts[3]!, /red/);
    assert.is(seq.reused, 1);
    const captions = Object.entries(models.workStats!().byKey).filter(([k]) => k.startsWith('caption|'));
    assert.is(
      captions.reduce((n, [, w]) => n + w.inputs, 0),
      3,
    );
    // Without a sequence (photos, or the old call) every frame is captioned.
    const plain = await analyzeFrame(deps, frame(9), await solid('red'), { embed: true, textVectors: false });
    assert.match(plain.captionText!, /red/);
  } finally {
    await models.close();
  }
});

test.run();
