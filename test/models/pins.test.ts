/**
 * Issue #14, item 4: the checksums the public record has are pinned in the
 * catalog (with sizes where known), SmolVLM lists the files transformers.js
 * 4.3.1 reads, and `fetch all` covers the models downloaded from a URL. No network.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadCatalog, modelFolder, requiredFiles } from '../../src/models/catalog.js';
import { modelStatus } from '../../src/models/inventory.js';
import { fetchableEntries, isFetchable, profileEntries } from '../../src/models/selection.js';
import { tempModelsDir } from './helpers.js';

const tmp = tempModelsDir();
test.after(() => tmp.cleanup());
const catalog = loadCatalog({ modelsDir: tmp.dir });

const PINS: [string, string, string, number | undefined][] = [
  ['yolox-s', 'yolox_s.onnx', 'c5c2d13e59ae883e6af3b45daea64af4833a4951c92d116ec270d9ddbe998063', 35_858_002],
  ['yolox-nano', 'yolox_nano.onnx', 'c789161ed43c8269fcd4e67c67eeeb4e80c622da2eb296a20bc6007bd18a0b7d', 3_659_407],
  [
    'sface',
    'face_recognition_sface_2021dec.onnx',
    '0ba9fbfa01b5270c96627c4ef784da859931e02f04419c829e83484087c34e79',
    38_696_353,
  ],
  ['modnet', 'onnx/model.onnx', '07c308cf0fc7e6e8b2065a12ed7fc07e1de8febb7dc7839d7b7f15dd66584df9', undefined],
  ['birefnet-lite', 'onnx/model.onnx', '5600024376f572a557870a5eb0afb1e5961636bef4e1e22132025467d0f03333', undefined],
];

test('the publicly recorded checksums (and sizes) are pinned', () => {
  for (const [name, file, sha256, bytes] of PINS) {
    const f = catalog.models.get(name)!.files.find((x) => x.path === file);
    assert.ok(f, `${name} lists ${file}`);
    assert.is(f!.sha256, sha256, `${name} ${file}`);
    assert.is(f!.bytes, bytes, `${name} ${file} size`);
  }
  for (const m of catalog.models.values())
    for (const f of m.files)
      if (f.bytes !== undefined) assert.ok(f.sha256, `${m.name} ${f.path}: a size goes with a digest`);
});

test('a pinned size catches a wrong file without hashing it', () => {
  const entry = catalog.models.get('yolox-nano')!;
  const folder = modelFolder(entry, tmp.dir);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'yolox_nano.onnx'), 'truncated');
  const s = modelStatus(entry, tmp.dir, { version: 1, files: {} });
  assert.equal(
    s.files.map((f) => [f.path, f.state, f.source]),
    [['yolox_nano.onnx', 'mismatch', 'known']],
  );
});

test('SmolVLM: processor_config.json is required, chat_template.json is not listed', () => {
  const smol = catalog.models.get('smolvlm-256m-instruct')!;
  const processor = smol.files.find((f) => f.path === 'processor_config.json');
  assert.ok(processor && !processor.optional, 'Idefics3Processor reads processor_config.json');
  assert.not.ok(
    smol.files.some((f) => f.path === 'chat_template.json'),
    'transformers.js 4.3.1 never reads it',
  );
  assert.ok(requiredFiles('smolvlm', 'fp32').includes('processor_config.json'), 'a local smolvlm entry needs it too');
});

test('`fetch all` includes the models downloaded from a URL; npm-package models are not fetched', () => {
  const all = fetchableEntries(catalog).map((e) => e.name);
  for (const name of ['yolox-s', 'yolox-nano', 'ultraface-rfb-320', 'sface']) assert.ok(all.includes(name), name);
  for (const m of catalog.models.values()) if (m.repo) assert.ok(all.includes(m.name), m.name);
  assert.not.ok(all.includes('pp-ocrv4'));
  assert.not.ok(
    isFetchable({ ...catalog.models.get('yolox-s')!, files: [{ path: 'x.onnx', sha256: null, optional: false }] }),
  );
  assert.equal(
    profileEntries(catalog, 'default').map((e) => e.name),
    [...new Set(Object.values(catalog.roles.default).filter(Boolean))],
  );
});

test.run();
