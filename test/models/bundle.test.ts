/**
 * Air-gapped bundles (issue #14, item 3): `npm run models -- pack` writes one
 * tar with a manifest of every file's sha256; `import` verifies everything in
 * a staging folder before moving anything into place. A truncated bundle, a
 * wrong checksum, a path escaping the folder or an unknown model is refused
 * with nothing installed and no staging left. A running server uses an
 * imported model on the next request, without a restart.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { extract } from 'tar';
import { importBundle, packBundle } from '../../src/models/bundle/index.js';
import { loadCatalog } from '../../src/models/catalog.js';
import { readLock } from '../../src/models/checksums.js';
import { embedderStandinFiles } from '../../src/models/standins/embedder.js';
import { startTestApp } from '../helpers/testApp.js';
import { tempModelsDir } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const tmp = tempModelsDir('lumen-bundle-');
test.after(() => tmp.cleanup());

/** A user's own small CLIP (catalog.local.json), the same entry on both machines. */
const LOCAL = {
  models: [{ name: 'tiny-clip', task: 'embed', arch: 'clip', dir: 'tiny-clip', dims: 512, licence: 'MIT' }],
};
const FILES = new Map(
  [...embedderStandinFiles({ arch: 'clip', dims: 512, seed: 'bundle' })].map(([k, v]) => [k, Buffer.from(v)]),
);

let n = 0;
/** A fresh models folder holding catalog.local.json (and the model's files when `installed`). */
function modelsDir(installed = false): string {
  const dir = path.join(tmp.dir, `m${n++}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'catalog.local.json'), JSON.stringify(LOCAL));
  if (installed)
    for (const [rel, data] of FILES) {
      mkdirSync(path.dirname(path.join(dir, 'tiny-clip', rel)), { recursive: true });
      writeFileSync(path.join(dir, 'tiny-clip', rel), data);
    }
  return dir;
}

function cli(args: string[], dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/models.ts', ...args],
      { cwd: ROOT, env: { ...process.env, MODELS_DIR: dir, OFFLINE: '1' } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Nothing of the model, no staging folder, no lock: what a refused import must leave. */
function assertUntouched(dir: string): void {
  assert.equal(readdirSync(dir).sort(), ['catalog.local.json'], `left in ${dir}`);
}

const source = modelsDir(true);
const bundle = path.join(tmp.dir, 'bundle.tar');

test('pack → import round trip through the CLI, into an empty models folder', async () => {
  const packed = await cli(['pack', 'tiny-clip', bundle], source);
  assert.is(packed.code, 0, packed.stderr);
  assert.match(packed.stdout, /bundle\.tar: 1 models, 6 files/);

  const target = modelsDir();
  const imported = await cli(['import', bundle], target);
  assert.is(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /tiny-clip: installed \(6 files/);
  for (const [rel, data] of FILES) assert.ok(readFileSync(path.join(target, 'tiny-clip', rel)).equals(data), rel);
  assert.equal(
    readdirSync(target).sort(),
    ['catalog.local.json', 'checksums.lock.json', 'tiny-clip'],
    'no staging left',
  );
  const lock = readLock(target);
  assert.is(Object.keys(lock.files).length, 6, 'checksums recorded');
  assert.ok(lock.files['local:tiny-clip/onnx/text_model.onnx'].sha256.match(/^[0-9a-f]{64}$/));

  const verify = await cli(['verify', 'tiny-clip'], target);
  assert.is(verify.code, 0, verify.stdout);
  assert.match(verify.stdout, /tiny-clip: ok \(6 recorded\)/);
  const list = await cli(['list'], target);
  assert.match(list.stdout, /tiny-clip\s+embed\s+512\s+-\s+installed/);
});

test('import from an extracted bundle folder; importing again over an installed model is fine', async () => {
  const extracted = path.join(tmp.dir, 'extracted');
  mkdirSync(extracted);
  await extract({ file: bundle, cwd: extracted });
  const target = modelsDir();
  const opts = { modelsDir: target, catalog: loadCatalog({ modelsDir: target }) };
  const r = await importBundle(extracted, opts);
  assert.equal(
    r.models.map((m) => [m.name, m.files]),
    [['tiny-clip', 6]],
  );
  const again = await importBundle(bundle, opts);
  assert.is(again.models[0].files, 6);
  assert.equal(readdirSync(target).sort(), ['catalog.local.json', 'checksums.lock.json', 'tiny-clip']);
});

test('a truncated bundle is refused (exit 1) with nothing installed', async () => {
  const whole = readFileSync(bundle);
  // Inside a file's data, inside a header, and cut just before or inside the end-of-archive blocks.
  const cuts = [Math.floor(whole.length * 0.7), 700, whole.length - 1024, whole.length - 100];
  for (const cut of cuts) {
    const file = path.join(tmp.dir, `truncated-${cut}.tar`);
    writeFileSync(file, whole.subarray(0, cut));
    const target = modelsDir();
    const r = await cli(['import', file], target);
    assert.is(r.code, 1, `cut at ${cut}: ${r.stdout}`);
    assert.match(r.stderr, /import REFUSED, nothing installed: .*(truncated|missing from the bundle|no manifest)/);
    assertUntouched(target);
  }
});

test('a wrong checksum is refused naming the file, with nothing installed', async () => {
  const whole = Buffer.from(readFileSync(bundle));
  const tokenizer = FILES.get('tokenizer.json')!;
  const at = whole.indexOf(tokenizer.subarray(0, 64));
  assert.ok(at > 0);
  whole[at + 10] ^= 1; // same size, one bit different
  const file = path.join(tmp.dir, 'flipped.tar');
  writeFileSync(file, whole);
  const target = modelsDir();
  const r = await cli(['import', file], target);
  assert.is(r.code, 1);
  assert.match(r.stderr, /model tiny-clip: tokenizer\.json fails its checksum/);
  assertUntouched(target);
});

test('refused: a path escaping the folder, a missing file, an unknown model, a recorded checksum that differs', async () => {
  const extracted = path.join(tmp.dir, 'extracted');
  const manifest = JSON.parse(readFileSync(path.join(extracted, 'manifest.json'), 'utf8'));
  const variant = (name: string, change: (m: typeof manifest) => void) => {
    const m = structuredClone(manifest);
    change(m);
    writeFileSync(path.join(extracted, name), JSON.stringify(m));
  };
  const attempt = async (name: string, target = modelsDir()) => {
    writeFileSync(path.join(extracted, 'manifest.json'), readFileSync(path.join(extracted, name)));
    try {
      await importBundle(extracted, { modelsDir: target, catalog: loadCatalog({ modelsDir: target }) });
      return assert.unreachable('should be refused') as never;
    } catch (err) {
      return { message: (err as Error).message, target };
    }
  };
  const original = readFileSync(path.join(extracted, 'manifest.json'));
  try {
    variant('escape.json', (m) => (m.models[0].files[0].path = '../../evil.json'));
    let r = await attempt('escape.json');
    assert.match(r.message, /must be a relative path inside the model folder/);
    assertUntouched(r.target);

    variant('missing.json', (m) => m.models[0].files.push({ path: 'extra.bin', bytes: 1, sha256: '0'.repeat(64) }));
    r = await attempt('missing.json');
    assert.match(r.message, /extra\.bin is missing from the bundle/);
    assertUntouched(r.target);

    variant('unknown.json', (m) => (m.models[0].name = 'not-here'));
    r = await attempt('unknown.json');
    assert.match(r.message, /model not-here is not in this server's catalog: add its entry to .*catalog\.local\.json/);

    // This machine recorded another digest for the model's file: the bundle does not override it.
    const target = modelsDir();
    writeFileSync(
      path.join(target, 'checksums.lock.json'),
      JSON.stringify({
        version: 1,
        files: { 'local:tiny-clip/config.json': { sha256: 'f'.repeat(64), bytes: 1, recordedAt: 'x' } },
      }),
    );
    writeFileSync(path.join(extracted, 'recorded.json'), original);
    r = await attempt('recorded.json', target);
    assert.match(r.message, /config\.json differs from its recorded checksum/);
    assert.equal(readdirSync(target).sort(), ['catalog.local.json', 'checksums.lock.json']);
  } finally {
    writeFileSync(path.join(extracted, 'manifest.json'), original);
  }
});

test('pack refuses a model that is not installed or fails its checksum, leaving no file', async () => {
  const empty = modelsDir();
  const out = path.join(tmp.dir, 'none.tar');
  const r = await cli(['pack', 'tiny-clip', out], empty);
  assert.is(r.code, 1);
  assert.match(r.stderr, /model tiny-clip is not installed \(missing config\.json/);
  assert.not.ok(existsSync(out));
  const usage = await cli(['pack', 'tiny-clip'], empty);
  assert.is(usage.code, 2);

  const catalog = loadCatalog({ modelsDir: source });
  const pinned = structuredClone(catalog.models.get('tiny-clip')!);
  pinned.files[0] = { ...pinned.files[0], sha256: '0'.repeat(64) };
  try {
    await packBundle([pinned], out, { modelsDir: source, lock: readLock(source) });
    assert.unreachable();
  } catch (err) {
    assert.match((err as Error).message, /tiny-clip: config\.json fails its known checksum/);
  }
  assert.not.ok(existsSync(out));
  assert.equal(
    readdirSync(tmp.dir).filter((f) => f.includes('.tmp-')),
    [],
    'no scratch left',
  );
});

test('a running server uses an imported model on the next request, without a restart', async () => {
  const target = modelsDir();
  const app = await startTestApp({}, { MODEL_PROFILE: 'default', MODELS_DIR: target });
  try {
    const ask = () => app.request('POST', '/api/ai/embed', { body: { text: 'red', model: 'tiny-clip' } });
    const before = await ask();
    assert.is(before.status, 503, JSON.stringify(before.body));
    assert.match(before.body.message, /model tiny-clip is not installed/);

    const imported = await cli(['import', bundle], target);
    assert.is(imported.code, 0, imported.stderr);

    const after = await ask();
    assert.is(after.status, 200, JSON.stringify(after.body));
    assert.is(after.body.embedding.length, 512);
  } finally {
    await app.close();
  }
});

test.run();
