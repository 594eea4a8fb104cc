import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalBlobStore } from '../../src/files/localBlobStore.js';
import { DomainError } from '../../src/platform/errors.js';
import { runBlobStoreSuite } from './blobStoreSuite.js';

runBlobStoreSuite('LocalBlobStore: the contract', async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'blobs-'));
  const store = new LocalBlobStore(dataDir);
  return {
    store,
    backdate: async (key, ms) => {
      const then = new Date(Date.now() - ms);
      await utimes(store.pathFor(key), then, then);
    },
    close: () => rm(dataDir, { recursive: true, force: true }),
  };
});

// What only the local disk has: folders, sharded paths, strict path mapping.
const test = suite<{ dataDir: string; store: LocalBlobStore }>('LocalBlobStore: the disk');
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

test.before.each(async (ctx) => {
  ctx.dataDir = await mkdtemp(path.join(os.tmpdir(), 'blobs-'));
  ctx.store = new LocalBlobStore(ctx.dataDir);
  await ctx.store.init();
});
test.after.each(async ({ dataDir }) => {
  await rm(dataDir, { recursive: true, force: true });
});

test('init creates files/ and tmp/', ({ dataDir, store }) => {
  assert.ok(existsSync(path.join(dataDir, 'files')));
  assert.ok(existsSync(path.join(dataDir, 'tmp')));
  assert.is(store.tmpDir, path.join(dataDir, 'tmp'));
});

test('a blob lives at files/<2 hex>/<2 hex>/<key>, one file per content', async ({ dataDir, store }) => {
  const r = await store.putBuffer(Buffer.from('hello blob'), 'jpg');
  const p = store.pathFor(r.key);
  assert.is(p, path.join(dataDir, 'files', r.key.slice(0, 2), r.key.slice(2, 4), r.key));
  assert.is(await readFile(p, 'utf8'), 'hello blob');
  await store.putBuffer(Buffer.from('hello blob'), 'jpg');
  assert.equal(await readdir(path.dirname(p)), [r.key]);
  assert.is(r.key, `${sha('hello blob')}.jpg`);
  const local = await store.materialize(r.key);
  assert.is(local.path, p, 'no copy on the local disk');
});

test('pathFor refuses anything that is not a strict key (no traversal)', ({ dataDir, store }) => {
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

test('the sweep leaves a stray file that is not a key alone', async ({ store }) => {
  const old = new Date(Date.now() - 3_600_000);
  const r = await store.putBuffer(Buffer.from('orphan'), 'jpg');
  await utimes(store.pathFor(r.key), old, old);
  const stray = path.join(path.dirname(store.pathFor(r.key)), 'notes.txt');
  await writeFile(stray, 'x');
  await utimes(stray, old, old);
  assert.is(await store.sweepOrphans(async () => new Set(), 60_000), 1);
  assert.ok(existsSync(stray));
});

test('listBlobs: every stored blob in key order, only files where their key says (the integrity report)', async ({
  dataDir,
  store,
}) => {
  const keys: string[] = [];
  for (const text of ['one', 'two', 'three']) keys.push((await store.putBuffer(Buffer.from(text), 'txt')).key);
  await writeFile(path.join(dataDir, 'files', 'stray.txt'), 'not a blob');
  const misplaced = `${sha('elsewhere')}.txt`;
  await writeFile(path.join(path.dirname(store.pathFor(keys[0])), misplaced), 'elsewhere');
  const listed: Array<{ key: string; size: number }> = [];
  for await (const b of store.listBlobs()) listed.push(b);
  assert.equal(
    listed.map((b) => b.key),
    [...keys].sort(),
  );
  assert.equal(listed.find((b) => b.key === keys[0])?.size, 3);
});

test('quarantine moves a blob out under its key, but not one written within minAgeMs', async ({ dataDir, store }) => {
  const { key } = await store.putBuffer(Buffer.from('stray'), 'bin');
  const dir = path.join(dataDir, 'quarantine');
  assert.not.ok(await store.quarantine(key, dir, 60_000), 'fresh: an upload may be about to reference it');
  assert.ok(await store.exists(key));
  const then = new Date(Date.now() - 120_000);
  await utimes(store.pathFor(key), then, then);
  assert.ok(await store.quarantine(key, dir, 60_000));
  assert.not.ok(await store.exists(key));
  assert.is(await readFile(path.join(dir, key), 'utf8'), 'stray');
  assert.not.ok(await store.quarantine(key, dir), 'gone: false');
  assert.not.ok(await store.quarantine('../../etc/passwd', dir), 'a malformed key is refused');
});

test.run();
