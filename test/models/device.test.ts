/**
 * DEVICE=cuda without the CUDA execution provider (these machines skip its
 * install): models still load, on CPU, with one warning. Where the provider
 * is installed, the part reports 'cuda' instead.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createVisionModels } from '../../src/models/visionModels.js';
import { memoryLogger, tempModelsDir, testConfig } from './helpers.js';

test('cuda requested: clean fallback to CPU with a warning, or real CUDA', async () => {
  const tmp = tempModelsDir();
  const logger = memoryLogger();
  const models = createVisionModels(testConfig(tmp.dir, { DEVICE: 'cuda' }), logger);
  try {
    const [a] = await models.embedTexts(null, ['red']);
    const [b] = await models.embedTexts('clip-vit-b32', ['red']);
    assert.is(a.length, 768);
    assert.is(b.length, 512);
    const devices = models.loadedModels().map((m) => m.device);
    const warnings = logger.lines.filter(
      (l) => l.level === 'warn' && l.msg === 'CUDA unavailable, running models on CPU',
    );
    if (devices.every((d) => d === 'cpu')) {
      assert.is(warnings.length, 1, 'one warning, then CPU for later loads without retrying CUDA');
      assert.match(String(warnings[0].err), /shared library|cuda/i);
    } else {
      assert.equal(devices, ['cuda', 'cuda']);
    }
  } finally {
    await models.close();
    tmp.cleanup();
  }
});

test.run();
