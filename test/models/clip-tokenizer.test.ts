/**
 * The real CLIP ViT-B/32 tokenizer files (from ../shared/models, read in place,
 * never copied) through the same transformers.js AutoTokenizer path the
 * runner uses, configured offline.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { sharedPath } from '../helpers/skip.js';

const folder = sharedPath('models/clip-vit-b32-tokenizer', 'real CLIP tokenizer test');

test('"a photo of a cat" → the real CLIP ids, offline', async () => {
  if (!folder) return;
  env.allowRemoteModels = false;
  env.localModelPath = path.dirname(folder) + path.sep;
  const tok = await AutoTokenizer.from_pretrained(path.basename(folder));
  assert.equal(tok.encode('a photo of a cat'), [49406, 320, 1125, 539, 320, 2368, 49407]);
  // The runner's text call: batched, padded, truncated to 77.
  const enc = tok(['a photo of a cat', 'red'], { padding: true, truncation: true });
  assert.equal(enc.input_ids.dims, [2, 7]);
  const long = tok(['word '.repeat(200)], { padding: true, truncation: true });
  assert.equal(long.input_ids.dims, [1, 77]);
});

test('a missing folder fails at once (remote models off), without reaching for the hub', async () => {
  if (!folder) return;
  env.allowRemoteModels = false;
  env.localModelPath = path.dirname(folder) + path.sep;
  try {
    await AutoTokenizer.from_pretrained('no-such-tokenizer-folder');
    assert.unreachable('should have failed');
  } catch (err) {
    // transformers.js says "Cannot read properties of undefined (reading 'tokenizer_class')" here: the
    // runner checks a model's files itself before loading, to give a useful message instead.
    assert.instance(err, Error);
  }
});

test.run();
