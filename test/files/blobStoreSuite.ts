/**
 * The blob store contract: what every BlobStore must do, run against each implementation with a factory
 * (blobStore.test.ts: the local disk; s3BlobStore.test.ts: S3 through s3rver and the real AWS SDK).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BlobStore } from '../../src/files/blobStore.js';
import { isBlobKey } from '../../src/files/blobStore.js';
import { DomainError } from '../../src/platform/errors.js';

/** One fresh, empty store for one test. */
export interface BlobStoreHarness {
  store: BlobStore;
  /** Moves a stored blob's write time (mtime, LastModified) `ms` into the past. */
  backdate(key: string, ms: number): Promise<void>;
  /** Removes what the harness made. */
  close(): Promise<void>;
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const HOUR = 3_600_000;

async function streamBytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function rejectsWith(p: Promise<unknown>, code: string, what: string) {
  await p.then(
    () => assert.unreachable(what),
    (e) => {
      assert.instance(e, DomainError, what);
      assert.is((e as DomainError).code, code, what);
    },
  );
}

/** Registers and runs the contract suite named `name` over stores that `open` makes. */
export function runBlobStoreSuite(name: string, open: () => Promise<BlobStoreHarness>): void {
  const test = suite<{ h: BlobStoreHarness; store: BlobStore }>(name);
  test.before.each(async (ctx) => {
    ctx.h = await open();
    ctx.store = ctx.h.store;
    await ctx.store.init();
  });
  test.after.each(async (ctx) => {
    await ctx.h.close();
  });

  const writeTemp = async (store: BlobStore, content: string | Buffer) => {
    const p = store.tempPath('upload');
    await writeFile(p, content);
    return p;
  };

  test('putFile hashes, stores, removes the temp file, and returns key, size, hash', async ({ store }) => {
    const tmp = await writeTemp(store, 'hello blob');
    const r = await store.putFile(tmp, 'jpg');
    assert.equal(r, { key: `${sha('hello blob')}.jpg`, sizeBytes: 10, sha256: sha('hello blob') });
    assert.ok(isBlobKey(r.key));
    assert.not.ok(existsSync(tmp), 'the temp file is gone');
    assert.ok(await store.exists(r.key));
    assert.is((await store.stat(r.key))?.size, 10);
    assert.equal(await store.readBuffer(r.key), Buffer.from('hello blob'));
  });

  test('a given hash is trusted; the same content dedupes onto one key', async ({ store }) => {
    const first = await store.putFile(await writeTemp(store, 'same bytes'), 'png', sha('same bytes'));
    const tmp2 = await writeTemp(store, 'same bytes');
    const second = await store.putFile(tmp2, 'png');
    assert.equal(second, first);
    assert.not.ok(existsSync(tmp2), 'the second temp file is removed too');
    // The extension is part of the identity.
    const third = await store.putFile(await writeTemp(store, 'same bytes'), 'webp');
    assert.is.not(third.key, first.key);
    assert.equal(await readdir(store.tmpDir), []);
  });

  test('putFile refuses a bad extension or hash with invalid_input', async ({ store }) => {
    const tmp = await writeTemp(store, 'x');
    for (const ext of ['', 'j', 'JPG', 'toolong', '../x', 'a/b'])
      await rejectsWith(store.putFile(tmp, ext), 'invalid_input', ext);
    await rejectsWith(store.putFile(tmp, 'jpg', 'abc'), 'invalid_input', 'hash');
    assert.ok(existsSync(tmp), 'a refused temp file stays for the caller');
  });

  test('putBuffer stores the same way and leaves nothing in tmp/', async ({ store }) => {
    const buf = Buffer.from('frame bytes');
    const r = await store.putBuffer(buf, 'jpg');
    assert.is(r.key, `${sha(buf)}.jpg`);
    assert.equal(await store.readBuffer(r.key), buf);
    assert.is((await store.putBuffer(buf, 'jpg')).key, r.key);
    assert.equal(await readdir(store.tmpDir), []);
  });

  test('malformed or absent keys: absent, null, not_found; remove reports absence', async ({ store }) => {
    const absent = `${'a'.repeat(64)}.jpg`;
    for (const key of ['../../etc/passwd', 'nope', `${'A'.repeat(64)}.jpg`, `${absent}/x`, absent]) {
      assert.is(await store.exists(key), false, key);
      assert.is(await store.stat(key), null, key);
      assert.is(await store.open(key), null, key);
      assert.is(await store.remove(key), false, key);
      await rejectsWith(store.readBuffer(key), 'not_found', key);
      await rejectsWith(store.materialize(key), 'not_found', key);
    }
    const r = await store.putBuffer(Buffer.from('bye'), 'gif');
    assert.is(await store.remove(r.key), true);
    assert.is(await store.remove(r.key), false);
    assert.is(await store.exists(r.key), false);
  });

  test('open reads byte ranges, both ends inclusive, or the whole blob', async ({ store }) => {
    const content = Buffer.from('0123456789abcdefghij');
    const { key } = await store.putBuffer(content, 'mp4');
    const blob = (await store.open(key))!;
    assert.is(blob.size, 20);
    assert.equal(await streamBytes(await blob.read({ start: 2, end: 5 })), Buffer.from('2345'));
    const again = (await store.open(key))!;
    assert.equal(await streamBytes(await again.read()), content);
    const last = (await store.open(key))!;
    assert.equal(await streamBytes(await last.read({ start: 19, end: 19 })), Buffer.from('j'));
    const unread = (await store.open(key))!;
    await unread.close(); // releases without reading
  });

  test('materialize gives a local file of the blob; release leaves the blob and no scratch behind', async ({
    store,
  }) => {
    const { key } = await store.putBuffer(Buffer.from('pixels'), 'png');
    const local = await store.materialize(key);
    assert.equal(await readFile(local.path), Buffer.from('pixels'));
    await local.release();
    assert.equal(await readdir(store.tmpDir), [], 'no copy left in tmp/');
    assert.ok(await store.exists(key));
    assert.equal(await store.readBuffer(key), Buffer.from('pixels'));
  });

  test('clearTemp empties tmp/; tempPath is unique and inside it', async ({ store }) => {
    const a = store.tempPath('up/../../x');
    assert.is.not(a, store.tempPath('up/../../x'));
    assert.is(path.dirname(a), store.tmpDir);
    await writeFile(a, 'a');
    await mkdir(path.join(store.tmpDir, 'dir'));
    await writeFile(path.join(store.tmpDir, 'dir', 'f'), 'f');
    assert.is(await store.clearTemp(), 2);
    assert.equal(await readdir(store.tmpDir), []);
  });

  test('sweepOrphans removes old unreferenced blobs only, asking in batches', async ({ h, store }) => {
    const keep = await store.putBuffer(Buffer.from('referenced'), 'jpg');
    const orphan = await store.putBuffer(Buffer.from('orphan'), 'jpg');
    const young = await store.putBuffer(Buffer.from('young orphan'), 'jpg');
    const extra = [];
    for (let i = 0; i < 5; i++) extra.push(await store.putBuffer(Buffer.from(`orphan ${i}`), 'png'));
    for (const k of [keep, orphan, ...extra]) await h.backdate(k.key, HOUR);
    const asked: string[][] = [];
    const isReferenced = async (keys: string[]) => {
      asked.push(keys);
      return new Set(keys.filter((k) => k === keep.key));
    };
    assert.is(await store.sweepOrphans(isReferenced, 60_000, 3), 6);
    assert.ok(asked.length >= 2, 'batched');
    assert.ok(asked.every((b) => b.length <= 3));
    assert.not.ok(asked.flat().includes(young.key), 'a young blob is not even asked about');
    assert.ok(await store.exists(keep.key));
    assert.ok(await store.exists(young.key), 'too young to judge');
    assert.not.ok(await store.exists(orphan.key));
  });

  test('a dedupe hit freshens the blob so the sweep spares it', async ({ h, store }) => {
    const first = await store.putBuffer(Buffer.from('reuploaded'), 'jpg');
    await h.backdate(first.key, HOUR);
    await store.putFile(await writeTemp(store, 'reuploaded'), 'jpg');
    assert.is(await store.sweepOrphans(async () => new Set(), 60_000), 0);
    assert.ok(await store.exists(first.key));
  });

  test('a file over 5 MiB round-trips whole (S3: a multipart upload)', async ({ store }) => {
    const big = randomBytes(12 * 1024 * 1024 + 123);
    const r = await store.putFile(await writeTemp(store, big), 'mp4');
    assert.is(r.sizeBytes, big.length);
    assert.is((await store.stat(r.key))?.size, big.length);
    assert.equal(sha(await store.readBuffer(r.key)), sha(big));
    const blob = (await store.open(r.key))!;
    const tail = await streamBytes(await blob.read({ start: big.length - 10, end: big.length - 1 }));
    assert.equal(tail, big.subarray(big.length - 10));
  });

  test.run();
}
