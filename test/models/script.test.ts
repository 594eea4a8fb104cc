/**
 * `npm run models -- list | fetch | verify` against a hub served from
 * 127.0.0.1 (MODEL_HUB_URL): download to a temp file, checksum recorded on
 * first fetch, verify re-hashes, tampering is caught. No traffic leaves the
 * loopback interface.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { loadCatalog } from '../../src/models/catalog.js';
import { readLock } from '../../src/models/checksums.js';
import { checkDownloadUrl, fetchModel } from '../../src/models/fetch.js';
import { verifyModel } from '../../src/models/inventory.js';
import { embedderStandinFiles } from '../../src/models/standins/embedder.js';
import { tempModelsDir } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const REPO = 'Xenova/clip-vit-base-patch32';
const tmp = tempModelsDir();
const served = new Map<string, Buffer>();
for (const [rel, data] of embedderStandinFiles({ arch: 'clip', dims: 512, seed: 'hub' }))
  served.set(rel, Buffer.from(data));
const requests: { url: string; remote: string }[] = [];
let server: http.Server;
let hub = '';

function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/models.ts', ...args],
      { cwd: ROOT, env: { ...process.env, MODELS_DIR: tmp.dir, MODEL_HUB_URL: hub, OFFLINE: '', ...env } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test.before(async () => {
  server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? '', remote: req.socket.remoteAddress ?? '' });
    const prefix = `/${REPO}/resolve/main/`;
    const url = req.url ?? '';
    // Like the hub, send the big file through a (relative) redirect.
    if (url === prefix + 'onnx/vision_model.onnx') {
      res.writeHead(302, { location: '/cdn/vision_model.onnx' }).end();
      return;
    }
    const rel =
      url === '/cdn/vision_model.onnx'
        ? 'onnx/vision_model.onnx'
        : url.startsWith(prefix)
          ? url.slice(prefix.length)
          : null;
    const body = rel === null ? undefined : served.get(rel);
    if (!body) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hub = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after(async () => {
  await new Promise((r) => server.close(r));
  tmp.cleanup();
  assert.ok(requests.every((r) => r.remote === '127.0.0.1' || r.remote === '::ffff:127.0.0.1'));
});

test('download URLs: https anywhere, http only to loopback', () => {
  checkDownloadUrl(new URL('https://huggingface.co/x'));
  checkDownloadUrl(new URL('http://127.0.0.1:9/x'));
  checkDownloadUrl(new URL('http://localhost/x'));
  assert.throws(() => checkDownloadUrl(new URL('http://huggingface.co/x')), /only https/);
  assert.throws(() => checkDownloadUrl(new URL('file:///etc/passwd')), /only https/);
});

test('OFFLINE=1: fetch refuses without any request', async () => {
  const r = await run(['fetch', 'clip-vit-b32'], { OFFLINE: '1' });
  assert.is(r.code, 2);
  assert.match(r.stderr, /OFFLINE is set/);
  assert.is(requests.length, 0);
});

test('fetch downloads, follows the redirect, records checksums; list and verify report it', async () => {
  const before = await run(['list']);
  assert.match(before.stdout, /clip-vit-b32\s+embed\s+512\s+embedFast\s+missing/);

  const r = await run(['fetch', 'clip-vit-b32']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /clip-vit-b32: ok \(6 downloaded, 0 already present, 6 checksums recorded\)/);
  const folder = path.join(tmp.dir, REPO);
  for (const [rel, data] of served) assert.ok(readFileSync(path.join(folder, rel)).equals(data), rel);
  assert.ok(
    requests.some((q) => q.url === '/cdn/vision_model.onnx'),
    'redirect followed',
  );
  const lock = readLock(tmp.dir);
  assert.is(Object.keys(lock.files).length, 6);
  assert.ok(lock.files[`${REPO}@main/onnx/text_model.onnx`].sha256.match(/^[0-9a-f]{64}$/));
  assert.not.ok(
    readdirSync(path.join(folder, 'onnx')).some((f) => f.includes('.part')),
    'no temp files left',
  );

  const list = await run(['list']);
  assert.match(list.stdout, /clip-vit-b32\s+embed\s+512\s+embedFast\s+installed\s+6 recorded/);
  assert.match(list.stdout, /default\s+embed\s+768\s+embed\s+missing/);

  const verify = await run(['verify']);
  assert.is(verify.code, 0, verify.stdout);
  assert.match(verify.stdout, /clip-vit-b32: ok \(6 recorded\)/);
});

test('verify catches a changed file (exit 1); fetch replaces it', async () => {
  const file = path.join(tmp.dir, REPO, 'onnx', 'vision_model.onnx');
  appendFileSync(file, Buffer.from([0]));
  const verify = await run(['verify', 'clip-vit-b32']);
  assert.is(verify.code, 1);
  assert.match(verify.stdout, /MISMATCH onnx\/vision_model.onnx/);

  const entry = loadCatalog({ modelsDir: tmp.dir }).models.get('clip-vit-b32')!;
  const result = await fetchModel(entry, { modelsDir: tmp.dir, hubUrl: hub });
  assert.equal(
    result.files.filter((f) => f.outcome === 'downloaded').map((f) => f.path),
    ['onnx/vision_model.onnx'],
  );
  const again = await verifyModel(entry, tmp.dir, readLock(tmp.dir));
  assert.ok(again.files.every((f) => f.state === 'recorded'));
});

test('a hub file that differs from the recorded checksum is refused and not installed', async () => {
  const entry = loadCatalog({ modelsDir: tmp.dir }).models.get('clip-vit-b32')!;
  const file = path.join(tmp.dir, REPO, 'onnx', 'text_model.onnx');
  rmSync(file);
  served.set('onnx/text_model.onnx', Buffer.concat([served.get('onnx/text_model.onnx')!, Buffer.from('tampered')]));
  try {
    await fetchModel(entry, { modelsDir: tmp.dir, hubUrl: hub });
    assert.unreachable('should have failed');
  } catch (err) {
    assert.match(
      (err as Error).message,
      /checksum mismatch for onnx\/text_model.onnx: expected [0-9a-f]{64} \(recorded\)/,
    );
  }
  assert.not.ok(existsSync(file));
  assert.not.ok(readdirSync(path.dirname(file)).some((f) => f.includes('.part')));
});

test('a local (user) model has nothing to fetch', async () => {
  const entry = { ...loadCatalog({ modelsDir: tmp.dir }).models.get('clip-vit-b32')!, repo: null, name: 'mine' };
  try {
    await fetchModel(entry, { modelsDir: tmp.dir, hubUrl: hub });
    assert.unreachable();
  } catch (err) {
    assert.match((err as Error).message, /local model/);
  }
});

test.run();
