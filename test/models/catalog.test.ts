/**
 * The model catalog: the shipped file validates, bad entries are refused with
 * a message naming the model, and a user's own model (catalog.local.json +
 * a folder) works through the runner with nothing else changed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import {
  factsOf,
  loadCatalog,
  mergeLocal,
  parseCatalog,
  requiredFiles,
  shippedCatalogPath,
} from '../../src/models/catalog.js';
import { embedderStandinFiles } from '../../src/models/standins/embedder.js';
import { florence2StandinFiles } from '../../src/models/standins/florence2.js';
import { createVisionModels } from '../../src/models/visionModels.js';
import { dot, memoryLogger, solid, tempModelsDir } from './helpers.js';

const shipped = JSON.parse(readFileSync(shippedCatalogPath(), 'utf8'));
const clone = () => structuredClone(shipped);
const tmp = tempModelsDir();
test.after(() => tmp.cleanup());

test('the shipped catalog is valid and has the expected models and roles', () => {
  const c = parseCatalog(shipped);
  const def = c.models.get('default')!;
  assert.equal(
    { arch: def.arch, dims: def.dims, task: def.task, repo: def.repo },
    { arch: 'siglip', dims: 768, task: 'embed', repo: 'Xenova/siglip-base-patch16-224' },
  );
  assert.is(c.models.get('clip-vit-l14')!.dims, 768);
  assert.is(c.models.get('clip-vit-b32')!.dims, 512);
  assert.is(c.models.get('florence-2-base')!.task, 'caption');
  assert.is(c.models.get('smolvlm-256m-instruct')!.task, 'prompt');
  assert.equal(c.roles.default, {
    embed: 'default',
    embedFast: 'clip-vit-b32',
    caption: 'florence-2-base',
    prompt: 'smolvlm-256m-instruct',
    detect: 'yolox-s',
    detectFaces: 'ultraface-rfb-320',
    embedFaces: 'sface',
    ocr: 'pp-ocrv4',
    upscale: 'swin2sr-x2',
    removeBackground: 'modnet',
    generate: 'janus-pro-1b',
  });
  assert.equal(
    c.roles.test,
    { ...c.roles.default, prompt: null },
    'the test profile differs only where no stand-in exists',
  );
  for (const m of c.models.values()) {
    // Janus-Pro's weights come under the DeepSeek Model License: commercial use allowed, with use-based restrictions.
    assert.ok(
      ['MIT', 'Apache-2.0', 'DeepSeek Model License (commercial use allowed)'].includes(m.licence),
      `${m.name}: ${m.licence}`,
    );
    assert.ok(m.files.every((f) => f.sha256 === null || /^[0-9a-f]{64}$/.test(f.sha256)));
    if (m.repo) assert.is(m.dir, m.repo, 'hub models live at <modelsDir>/<owner>/<name>, the transformers.js layout');
    else
      assert.ok(
        m.package || m.files.every((f) => f.url),
        `${m.name}: non-hub models name a package or a download URL per file`,
      );
  }
});

test('model facts: calibrations and cluster thresholds live in the catalog, the stand-ins declare their own', () => {
  const c = parseCatalog(shipped);
  const facts = (name: string, standin = false) => factsOf(c, c.models.get(name)!, standin);
  const clip = { textToImage: { lo: 0.15, hi: 0.32 }, imageToImage: { lo: 0.55, hi: 0.95 } };
  const siglip = { textToImage: { lo: 0.0, hi: 0.16 }, imageToImage: { lo: 0.55, hi: 0.95 } };
  assert.equal(facts('default').calibration, siglip);
  assert.equal(facts('clip-vit-b32').calibration, clip);
  assert.equal(facts('clip-vit-l14').calibration, clip);
  assert.equal(facts('sface'), { calibration: { imageToImage: { lo: 0.25, hi: 0.75 } }, clusterThreshold: 0.45 });
  const standinEmbedder = { textToImage: { lo: 0.05, hi: 0.85 }, imageToImage: { lo: 0.5, hi: 1.0 } };
  assert.equal(facts('default', true).calibration, standinEmbedder);
  assert.equal(facts('clip-vit-b32', true).calibration, standinEmbedder);
  assert.equal(facts('sface', true), { calibration: { imageToImage: { lo: 0.6, hi: 1.0 } }, clusterThreshold: 0.9 });
  // A user's own embedder without calibrations gets its architecture's.
  const local = mergeLocal(c, {
    models: [{ name: 'my-siglip', task: 'embed', arch: 'siglip', dims: 768, licence: 'MIT' }],
  });
  assert.equal(factsOf(local, local.models.get('my-siglip')!, false).calibration, siglip);
  const uncalibrated = clone();
  uncalibrated.archDefaults = {};
  delete uncalibrated.models[0].calibration;
  assert.throws(() => parseCatalog(uncalibrated), /model "default" declares no calibration.textToImage/);
  const badRange = clone();
  badRange.models[0].calibration.textToImage = { lo: 0.5, hi: 0.1 };
  assert.throws(() => parseCatalog(badRange), /"hi" must be above "lo"/);
});

test('requiredFiles follows the dtype suffixes', () => {
  assert.equal(requiredFiles('clip', 'q8').slice(-2), [
    'onnx/vision_model_quantized.onnx',
    'onnx/text_model_quantized.onnx',
  ]);
  assert.ok(requiredFiles('vit-gpt2', 'fp32').includes('generation_config.json'));
});

test('invalid entries are refused with the model named', () => {
  const missingFile = clone();
  missingFile.models[0].files.pop();
  assert.throws(() => parseCatalog(missingFile), /model "default": files lacks onnx\/text_model.onnx/);

  const noDims = clone();
  noDims.models[2].dims = null;
  assert.throws(() => parseCatalog(noDims), /model "clip-vit-b32": embedding models need "dims"/);

  const wrongTask = clone();
  wrongTask.models[0].task = 'caption';
  assert.throws(() => parseCatalog(wrongTask), /arch siglip serves task "embed"/);

  const badSha = clone();
  badSha.models[0].files[0].sha256 = 'abc';
  assert.throws(() => parseCatalog(badSha), /64 lower-case hex/);

  const escape = clone();
  escape.models[0].files[0].path = '../../etc/passwd';
  assert.throws(() => parseCatalog(escape), /relative path inside/);

  const dup = clone();
  dup.models.push(dup.models[0]);
  assert.throws(() => parseCatalog(dup), /"default" is listed twice/);

  const badRole = clone();
  badRole.roles.default.caption = 'clip-vit-b32';
  assert.throws(() => parseCatalog(badRole), /roles.default.caption needs a caption model/);
});

test('catalog.local.json: user entries get default files, may override roles, and are checked', () => {
  const base = parseCatalog(shipped);
  const merged = mergeLocal(base, {
    models: [{ name: 'my-clip', task: 'embed', arch: 'clip', dir: 'my-clip', dims: 512, licence: 'MIT' }],
    roles: { default: { embedFast: 'my-clip' } },
  });
  const mine = merged.models.get('my-clip')!;
  assert.is(mine.source, 'local');
  assert.is(mine.repo, null);
  assert.equal(
    mine.files.map((f) => f.path),
    requiredFiles('clip', 'fp32'),
  );
  assert.is(merged.roles.default.embedFast, 'my-clip');
  assert.is(merged.roles.default.embed, 'default');
  assert.throws(
    () => mergeLocal(base, { models: [{ name: 'Bad Name', task: 'embed', arch: 'clip', dims: 3, licence: 'x' }] }),
    /catalog.local.json: model "Bad Name" name: lower-case/,
  );
  assert.throws(
    () =>
      mergeLocal(base, {
        models: [{ name: 'x', task: 'embed', arch: 'clip', dims: 3, licence: 'x', dir: '../outside' }],
      }),
    /inside the models folder/,
  );
});

test('a fine-tuned CLIP dropped into models/ works through the runner (default profile)', async () => {
  // The "fine-tuned CLIP": a real-layout folder (a stand-in's files serve as its weights).
  const folder = path.join(tmp.dir, 'my-clip');
  for (const [rel, data] of embedderStandinFiles({ arch: 'clip', dims: 512, seed: 'my-clip' })) {
    mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
    writeFileSync(path.join(folder, rel), data);
  }
  writeFileSync(
    path.join(tmp.dir, 'catalog.local.json'),
    JSON.stringify({
      version: 1,
      models: [{ name: 'my-clip', task: 'embed', arch: 'clip', dir: 'my-clip', dims: 512, licence: 'MIT' }],
    }),
  );
  const config = loadConfig({ MODEL_PROFILE: 'default', MODELS_DIR: tmp.dir });
  assert.ok(loadCatalog({ modelsDir: tmp.dir }).models.has('my-clip'));
  const models = createVisionModels(config, memoryLogger());
  try {
    const info = models.modelInfo('my-clip');
    assert.equal(
      { id: info.id, installed: info.installed, standin: info.standin },
      { id: 'my-clip:local:my-clip:fp32', installed: true, standin: false },
    );
    assert.equal(info.calibration, { textToImage: { lo: 0.15, hi: 0.32 }, imageToImage: { lo: 0.55, hi: 0.95 } });
    assert.equal(models.modelInfoById(info.id), info, 'a stored model id finds its entry');
    assert.is(models.modelInfoById('sface:0123456789ab')!.clusterThreshold, 0.45);
    assert.is(models.modelInfoById('gone:local:gone:fp32'), null);
    const [image] = await models.embedImages('my-clip', [await solid('red')]);
    const [red, blue] = await models.embedTexts('my-clip', ['red', 'blue']);
    assert.ok(dot(image, red) > dot(image, blue));
    // Shipped models are simply not installed here.
    assert.is(models.modelInfo('default').installed, false);
    try {
      await models.embedTexts('default', ['x']);
      assert.unreachable();
    } catch (err) {
      assert.match((err as Error).message, /not installed: run `npm run models -- fetch default`/);
    }
  } finally {
    await models.close();
  }
});

test('the q8 captioner, chosen in catalog.local.json, loads its _quantized parts (default profile)', async () => {
  // The shipped q8 entry shares the fp32 entry's repository folder; only its `_quantized` files are here
  // (a stand-in's graphs under those names), so the caption can only have come from them.
  const dir = path.join(tmp.dir, 'q8');
  const folder = path.join(dir, 'onnx-community', 'Florence-2-base-ft');
  for (const [rel, data] of florence2StandinFiles()) {
    const target = path.join(folder, rel.replace(/\.onnx$/, '_quantized.onnx'));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, data);
  }
  writeFileSync(
    path.join(dir, 'catalog.local.json'),
    JSON.stringify({ version: 1, roles: { default: { caption: 'florence-2-base-q8' } } }),
  );
  const models = createVisionModels(loadConfig({ MODEL_PROFILE: 'default', MODELS_DIR: dir }), memoryLogger());
  try {
    assert.is(models.roles().caption, 'florence-2-base-q8');
    const q8 = models.modelInfo('florence-2-base-q8');
    assert.equal({ installed: q8.installed, dtype: q8.dtype }, { installed: true, dtype: 'q8' });
    assert.match(q8.id, /:q8$/);
    assert.is(models.modelInfo('florence-2-base').installed, false, 'the fp32 parts are not there');
    const [caption] = await models.caption([await solid('red')], '<CAPTION>');
    assert.match(caption.text, /red/);
  } finally {
    await models.close();
  }
});

test.run();
