/**
 * Stand-in models: generated quickly, in the real folder layout, loadable by
 * the real transformers.js classes and pipelines (in this thread; the runner
 * tests exercise them through the worker).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { AutoTokenizer, CLIPTextModelWithProjection, RawImage, env, pipeline } from '@huggingface/transformers';
import sharp from 'sharp';
import { loadCatalog } from '../../src/models/catalog.js';
import {
  detectorStandin,
  ensureStandin,
  ensureStandins,
  hasStandin,
  STANDIN_VERSION,
  standinRoot,
} from '../../src/models/standins/index.js';
import { tempModelsDir } from './helpers.js';

const tmp = tempModelsDir();
const catalog = loadCatalog({ modelsDir: tmp.dir });
let generated: ReturnType<typeof ensureStandins>;

test.before(() => {
  generated = ensureStandins(tmp.dir, catalog);
  env.allowRemoteModels = false;
  env.localModelPath = generated.root + path.sep;
});
test.after(() => tmp.cleanup());

test('every embedder and captioner gets a stand-in, in milliseconds', () => {
  assert.equal(generated.names.sort(), [
    'birefnet-lite',
    'clip-vit-b32',
    'clip-vit-l14',
    'default',
    'florence-2-base',
    'florence-2-base-q8',
    'janus-pro-1b',
    'modnet',
    'swin2sr-x2',
    'vit-gpt2',
  ]);
  console.log(`stand-in generation: ${generated.ms.toFixed(0)} ms for ${generated.names.length} models`);
  assert.ok(generated.ms < 5000, `took ${generated.ms} ms`);
  assert.not.ok(hasStandin(catalog.models.get('smolvlm-256m-instruct')!));
  // Warm (already-compiled) generation of all five, for the record.
  const t = performance.now();
  for (const e of catalog.models.values())
    if (hasStandin(e)) ensureStandin({ ...e, name: `${e.name}-again` }, path.join(tmp.dir, 'again'));
  console.log(`stand-in generation, warm: ${(performance.now() - t).toFixed(0)} ms for 5 models`);
});

test('folder layout matches the real models', () => {
  const root = standinRoot(tmp.dir);
  for (const name of ['default', 'clip-vit-b32', 'clip-vit-l14']) {
    for (const f of [
      'config.json',
      'preprocessor_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/vision_model.onnx',
      'onnx/text_model.onnx',
    ]) {
      assert.ok(existsSync(path.join(root, name, f)), `${name}/${f}`);
    }
  }
  for (const f of [
    'config.json',
    'generation_config.json',
    'preprocessor_config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    'onnx/encoder_model.onnx',
    'onnx/decoder_model_merged.onnx',
  ]) {
    assert.ok(existsSync(path.join(root, 'vit-gpt2', f)), `vit-gpt2/${f}`);
  }
  for (const part of ['vision_encoder', 'embed_tokens', 'encoder_model', 'decoder_model_merged']) {
    assert.ok(existsSync(path.join(root, 'florence-2-base', 'onnx', `${part}.onnx`)), `florence-2-base/${part}`);
  }
  const config = JSON.parse(readFileSync(path.join(root, 'default', 'config.json'), 'utf8'));
  assert.is(config.model_type, 'siglip');
  assert.is(JSON.parse(readFileSync(path.join(root, 'clip-vit-b32', 'config.json'), 'utf8')).projection_dim, 512);
  // Tiny: the biggest file is the 768-d text embedding table.
  assert.ok(statSync(path.join(root, 'default', 'onnx', 'text_model.onnx')).size < 2 * 2 ** 20);
});

test('generation is idempotent: a current stand-in is not rewritten', () => {
  const entry = catalog.models.get('clip-vit-b32')!;
  const file = path.join(standinRoot(tmp.dir), 'clip-vit-b32', 'onnx', 'text_model.onnx');
  const before = statSync(file).mtimeMs;
  ensureStandin(entry, standinRoot(tmp.dir));
  assert.is(statSync(file).mtimeMs, before);
});

test('the stand-in tokenizer loads through AutoTokenizer and knows the colour words', async () => {
  const tok = await AutoTokenizer.from_pretrained('clip-vit-b32');
  const ids = tok.encode('A RED thing');
  const vocab = JSON.parse(readFileSync(path.join(standinRoot(tmp.dir), 'clip-vit-b32', 'tokenizer.json'), 'utf8'))
    .model.vocab;
  assert.is(ids.length, 5, 'bos, a, red, thing, eos');
  assert.is(ids[2], vocab['Ġred']);
  assert.is(ids[0], vocab['<|startoftext|>']);
  assert.is(ids[4], vocab['<|endoftext|>']);
});

test('the CLIP text tower runs in-process and puts "red" on its own axis', async () => {
  const tok = await AutoTokenizer.from_pretrained('clip-vit-b32');
  const model = await CLIPTextModelWithProjection.from_pretrained('clip-vit-b32', { dtype: 'fp32' });
  const { text_embeds } = await model(tok(['red', 'blue'], { padding: true }));
  assert.equal(text_embeds.dims, [2, 512]);
  const data = text_embeds.data as Float32Array;
  const red = data.slice(0, 512);
  const blue = data.slice(512);
  assert.is(red.filter((x) => x !== 0).length, 1);
  assert.is(
    red.reduce((s, x, i) => s + x * blue[i], 0),
    0,
  );
  await model.dispose();
});

test("the captioner stand-in runs through pipeline('image-to-text')", async () => {
  const captioner = await pipeline('image-to-text', 'vit-gpt2', { dtype: 'fp32' });
  const { data, info } = await sharp({
    create: { width: 50, height: 40, channels: 3, background: { r: 30, g: 170, b: 40 } },
  })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const out = await captioner(new RawImage(new Uint8ClampedArray(data), info.width, info.height, 3));
  assert.equal(out, [{ generated_text: 'a photo of a green thing' }]);
  await captioner.dispose();
});

test('the catalog declares the stand-ins the generators make, at their version', () => {
  assert.is(catalog.standins.version, STANDIN_VERSION, 'model ids name the generated files');
  for (const entry of catalog.models.values()) {
    const generated = hasStandin(entry) || detectorStandin(entry) !== null;
    assert.is(catalog.standins.arches[entry.arch] !== undefined, generated, `${entry.name} (${entry.arch})`);
  }
});

test.run();
