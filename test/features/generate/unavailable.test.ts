import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp } from '../../helpers/testApp.js';

test('default profile without the model files: 503 {error, message} saying how to fetch the model', async () => {
  const modelsDir = mkdtempSync(path.join(os.tmpdir(), 'gen-nomodels-'));
  const app = await startTestApp({}, { MODEL_PROFILE: 'default', MODELS_DIR: modelsDir });
  try {
    for (const headers of [{}, { prefer: 'respond-async' }] as Record<string, string>[]) {
      const r = await app.request('POST', '/api/ai/generate', { body: { prompt: 'a red apple' }, headers });
      assert.is(r.status, 503, JSON.stringify(r.body));
      assert.is(r.body.error, 'Service Unavailable');
      assert.match(r.body.message, /npm run models -- fetch janus-pro-1b/);
    }
    // Validation still comes first.
    assert.is((await app.request('POST', '/api/ai/generate', { body: { prompt: '' } })).status, 400);
  } finally {
    await app.close();
    rmSync(modelsDir, { recursive: true, force: true });
  }
});

test.run();
