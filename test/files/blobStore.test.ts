import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BlobStore, isBlobKey } from '../../src/files/blobStore.js';
import { DomainError } from '../../src/platform/errors.js';

let dataDir = '';
let store: BlobStore;
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

test.before.each(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'blobs-'));
  store = new BlobStore(dataDir);
  await store.init();
});
test.after.each(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function writeTemp(content: string): Promise<string> {
  const p = store.tempPath('upload');
  await writeFile(p, content);
  return p;
}

test('init creates files/ and tmp/; tempPath is unique and under tmp/', () => {
  assert.ok(existsSync(path.join(dataDir, 'files')));
  assert.ok(existsSync(path.join(dataDir, 'tmp')));
  const a = store.tempPath('up/../../x');
  const b = store.tempPath('up/../../x');
  assert.is.not(a, b);
  assert.is(path.dirname(a), path.join(dataDir, 'tmp'));
});

test('putFile hashes, moves into a sharded path, and returns key, size, hash', async () => {
  const tmp = await writeTemp('hello blob');
  const r = await store.putFile(tmp, 'jpg');
  assert.is(r.sha256, sha('hello blob'));
  assert.is(r.key, `${sha('hello blob')}.jpg`);
  assert.is(r.sizeBytes, 10);
  assert.ok(isBlobKey(r.key));
  const p = store.pathFor(r.key);
  assert.is(p, path.join(dataDir, 'files', r.key.slice(0, 2), r.key.slice(2, 4), r.key));
  assert.is(await readFile(p, 'utf8'), 'hello blob');
  assert.not.ok(existsSync(tmp), 'temp file was moved away');
  assert.ok(await store.exists(r.key));
  assert.equal(await store.stat(r.key).then((s) => s?.size), 10);
});

test('putFile trusts a given hash; dedupe deletes the second temp and keeps one file', async () => {
  const first = await store.putFile(await writeTemp('same bytes'), 'png', sha('same bytes'));
  const tmp2 = await writeTemp('same bytes');
  const second = await store.putFile(tmp2, 'png');
  assert.is(second.key, first.key);
  assert.is(second.sizeBytes, first.sizeBytes);
  assert.not.ok(existsSync(tmp2));
  const shard = path.dirname(store.pathFor(first.key));
  assert.equal(await readdir(shard), [first.key]);
  // Same bytes with another extension is another key (the extension is part of the identity).
  const third = await store.putFile(await writeTemp('same bytes'), 'webp');
  assert.is.not(third.key, first.key);
});

test('putFile refuses a bad extension or hash', async () => {
  const tmp = await writeTemp('x');
  for (const ext of ['', 'j', 'JPG', 'toolong', '../x', 'a/b']) {
    await store.putFile(tmp, ext).then(
      () => assert.unreachable(`ext ${ext}`),
      (e) => assert.is((e as DomainError).code, 'invalid_input'),
    );
  }
  await store.putFile(tmp, 'jpg', 'abc').then(
    () => assert.unreachable(),
    (e) => assert.is((e as DomainError).code, 'invalid_input'),
  );
});

test('putBuffer stores small derived files the same way and leaves nothing in tmp/', async () => {
  const buf = Buffer.from('frame bytes');
  const r = await store.putBuffer(buf, 'jpg');
  assert.is(r.key, `${sha(buf)}.jpg`);
  assert.equal(await readFile(store.pathFor(r.key)), buf);
  assert.equal(await readdir(store.tmpDir), []);
  const again = await store.putBuffer(buf, 'jpg');
  assert.is(again.key, r.key);
  assert.equal(await readdir(store.tmpDir), []);
});

test('pathFor refuses anything that is not a strict key (no traversal)', () => {
  const good = `${'a'.repeat(64)}.jpg`;
  assert.ok(store.pathFor(good).startsWith(path.join(dataDir, 'files')));
  const bad = [
    '',
    '../../etc/passwd',
    `../${'a'.repeat(64)}.jpg`,
    `${'a'.repeat(64)}.jpg/../../x`,
    `${'A'.repeat(64)}.jpg`,
    `${'a'.repeat(63)}.jpg`,
    `${'a'.repeat(65)}.jpg`,
    `${'a'.repeat(64)}`,
    `${'a'.repeat(64)}.`,
    `${'a'.repeat(64)}.jpg\0`,
    `${'a'.repeat(64)}.jpg\n`,
    `${'a'.repeat(64)}..jpg`,
    `${'g'.repeat(64)}.jpg`,
    `${'a'.repeat(64)}.toolong`,
    `/${'a'.repeat(64)}.jpg`,
  ];
  for (const key of bad) {
    try {
      store.pathFor(key);
      assert.unreachable(JSON.stringify(key));
    } catch (e) {
      assert.instance(e, DomainError, JSON.stringify(key));
      assert.is((e as DomainError).code, 'not_found');
    }
  }
});

test('exists/stat answer false/null for malformed keys; remove reports absence', async () => {
  assert.is(await store.exists('../../etc/passwd'), false);
  assert.is(await store.stat('nope'), null);
  const r = await store.putBuffer(Buffer.from('bye'), 'gif');
  assert.is(await store.remove(r.key), true);
  assert.is(await store.remove(r.key), false);
  assert.is(await store.exists(r.key), false);
});

test('clearTemp empties tmp/', async () => {
  await writeFile(store.tempPath('a'), 'a');
  await mkdir(path.join(store.tmpDir, 'dir'));
  await writeFile(path.join(store.tmpDir, 'dir', 'f'), 'f');
  assert.is(await store.clearTemp(), 2);
  assert.equal(await readdir(store.tmpDir), []);
});

test('sweepOrphans removes old unreferenced blobs only, asking in batches', async () => {
  const old = new Date(Date.now() - 3_600_000);
  const keep = await store.putBuffer(Buffer.from('referenced'), 'jpg');
  const orphan = await store.putBuffer(Buffer.from('orphan'), 'jpg');
  const young = await store.putBuffer(Buffer.from('young orphan'), 'jpg');
  const extra = [];
  for (let i = 0; i < 5; i++) extra.push(await store.putBuffer(Buffer.from(`orphan ${i}`), 'png'));
  for (const k of [keep, orphan, ...extra]) await utimes(store.pathFor(k.key), old, old);
  // A stray file that is not a key is not ours to delete.
  const stray = path.join(path.dirname(store.pathFor(keep.key)), 'notes.txt');
  await writeFile(stray, 'x');
  await utimes(stray, old, old);

  const asked: string[][] = [];
  const removed = await store.sweepOrphans(
    async (keys) => {
      asked.push(keys);
      return new Set(keys.filter((k) => k === keep.key));
    },
    60_000,
    3,
  );
  assert.is(removed, 6);
  assert.ok(asked.length >= 2, 'batched');
  assert.ok(asked.every((b) => b.length <= 3));
  assert.ok(await store.exists(keep.key));
  assert.ok(await store.exists(young.key), 'too young to judge');
  assert.not.ok(await store.exists(orphan.key));
  assert.ok(existsSync(stray));
});

test('a dedupe hit freshens the blob so the sweep spares it', async () => {
  const old = new Date(Date.now() - 3_600_000);
  const first = await store.putBuffer(Buffer.from('reuploaded'), 'jpg');
  await utimes(store.pathFor(first.key), old, old);
  await store.putBuffer(Buffer.from('reuploaded'), 'jpg');
  const removed = await store.sweepOrphans(async () => new Set(), 60_000);
  assert.is(removed, 0);
  assert.ok(await store.exists(first.key));
});

test.run();
