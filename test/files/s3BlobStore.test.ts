/**
 * The S3 blob store against s3rver on 127.0.0.1 with the real AWS SDK client: the blob store contract,
 * then what only S3 has (multipart uploads and their clean-up, the start-up check).
 */
import {
  AbortMultipartUploadCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../src/config.js';
import { openBlobStore } from '../../src/files/openBlobStore.js';
import { abortStaleUploads } from '../../src/files/s3/incompleteUploads.js';
import { BlobStoreUnavailableError, createS3Client } from '../../src/files/s3/s3Client.js';
import { S3BlobStore } from '../../src/files/s3/s3BlobStore.js';
import { StartupError } from '../../src/platform/startupError.js';
import { runBlobStoreSuite } from './blobStoreSuite.js';
import { startS3 } from './s3Server.js';

const s3 = await startS3();

runBlobStoreSuite('S3BlobStore (s3rver): the contract', () => s3.harness());

type Harness = Awaited<ReturnType<typeof s3.harness>>;
const test = suite<{ h: Harness }>('S3BlobStore (s3rver): S3 only');
test.before.each(async (ctx) => {
  ctx.h = await s3.harness();
  await ctx.h.store.init();
});
test.after.each(async ({ h }) => h.close());
test.after(() => s3.stop());

/** Records every command the client sends; `fail` may throw instead of sending one. */
function record(client: S3Client, fail?: (command: string) => void): string[] {
  const names: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      names.push(String(context.commandName));
      fail?.(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return names;
}

/** What `p` rejects with (a test failure when it resolves). */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

async function tempFile(h: Harness, bytes: Buffer): Promise<string> {
  const file = h.store.tempPath('upload');
  await writeFile(file, bytes);
  return file;
}

test('above 5 MiB putFile uploads in 5 MiB parts; below, one PutObject', async ({ h }) => {
  const names = record(h.client);
  const big = await h.store.putFile(await tempFile(h, randomBytes(12 * 1024 * 1024)), 'mov');
  const parts = names.filter((n) => n === 'UploadPartCommand').length;
  assert.is(parts, 3, '12 MiB in 5 MiB parts');
  assert.ok(names.includes('CreateMultipartUploadCommand') && names.includes('CompleteMultipartUploadCommand'));
  assert.is((await h.store.stat(big.key))?.size, 12 * 1024 * 1024);
  names.length = 0;
  await h.store.putBuffer(Buffer.from('small'), 'jpg');
  assert.ok(names.includes('PutObjectCommand'));
  assert.not.ok(names.includes('CreateMultipartUploadCommand'));
});

test('a failed part: the upload is aborted, no object appears, the temp file stays for the caller', async ({ h }) => {
  let parts = 0;
  const names = record(h.client, (n) => {
    if (n === 'UploadPartCommand' && ++parts === 2) throw new Error('part lost on the way');
  });
  const bytes = randomBytes(11 * 1024 * 1024);
  const file = await tempFile(h, bytes);
  await h.store.putFile(file, 'mp4').then(
    () => assert.unreachable('the upload failed'),
    (err: Error) => assert.ok(err instanceof Error),
  );
  // lib-storage sent AbortMultipartUpload; s3rver answers it with 405, which is what putFile then throws.
  assert.ok(names.includes('AbortMultipartUploadCommand'), 'abort was asked for');
  assert.ok(existsSync(file));
  const { createHash } = await import('node:crypto');
  assert.is(await h.store.exists(`${createHash('sha256').update(bytes).digest('hex')}.mp4`), false);
});

test('s3rver lacks ListMultipartUploads (501): the sweep of incomplete uploads says unsupported, no error', async ({
  h,
}) => {
  assert.equal(await h.store.sweepIncompleteUploads(0), { aborted: 0, unsupported: true });
  // And the orphan sweep, which ends with it, completes.
  assert.is(await h.store.sweepOrphans(async () => new Set(), 60_000), 0);
});

test('where the store lists them, uploads older than the limit are aborted, younger ones kept', async () => {
  const sent: Array<{ input: Record<string, unknown> }> = [];
  const day = 24 * 3_600_000;
  const client = {
    send: async (command: { input: Record<string, unknown> }) => {
      sent.push(command);
      if (command instanceof ListMultipartUploadsCommand)
        return sent.length === 1
          ? {
              IsTruncated: true,
              NextKeyMarker: 'b',
              NextUploadIdMarker: '2',
              Uploads: [
                { Key: 'a', UploadId: '1', Initiated: new Date(Date.now() - 2 * day) },
                { Key: 'b', UploadId: '2', Initiated: new Date() },
              ],
            }
          : { IsTruncated: false, Uploads: [{ Key: 'c', UploadId: '3', Initiated: new Date(Date.now() - 3 * day) }] };
      return {};
    },
  } as unknown as S3Client;
  assert.equal(await abortStaleUploads(client, 'bucket', day), { aborted: 2, unsupported: false });
  const aborts = sent.filter((c) => c instanceof AbortMultipartUploadCommand).map((c) => c.input.UploadId);
  assert.equal(aborts, ['1', '3']);
  assert.is(sent[2].input.KeyMarker, 'b', 'the second page starts after the first');
});

test('the sweep leaves objects whose name is not a blob key alone', async ({ h }) => {
  await h.client.send(new PutObjectCommand({ Bucket: h.bucket, Key: 'notes.txt', Body: 'x' }));
  await h.backdate('notes.txt', 3_600_000);
  assert.is(await h.store.sweepOrphans(async () => new Set(), 60_000), 0);
  const got = await h.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: 'notes.txt' }));
  assert.is(await got.Body!.transformToString(), 'x');
});

test('start-up: a bucket that does not exist is one clear line naming the fix', async () => {
  const settings = s3.settings('no-such-bucket');
  const store = new S3BlobStore({
    dataDir: await mkdtemp(path.join(os.tmpdir(), 's3blobs-')),
    settings,
    client: createS3Client(settings),
  });
  const err = await failure(store.init());
  assert.instance(err, BlobStoreUnavailableError);
  assert.instance(err, StartupError);
  assert.match(err.message, /^S3 bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+ does not exist: create it/);
  assert.match(err.message, /S3_BUCKET/);
  assert.not.match(err.message, /\n/);
  await rm(path.dirname(store.tmpDir), { recursive: true, force: true });
});

test('start-up: an unreachable store names S3_ENDPOINT; openBlobStore refuses from the configuration', async () => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise((r) => closed.close(r));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 's3blobs-'));
  try {
    const env = {
      DATA_DIR: dataDir,
      BLOB_STORE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: 'blobs',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    };
    const config = loadConfig(env);
    assert.equal(config.s3?.forcePathStyle, true, 'path-style by default with an endpoint');
    const err = await failure(openBlobStore(config));
    assert.instance(err, StartupError);
    assert.match(
      err.message,
      /^cannot reach the S3 store at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): check S3_ENDPOINT/,
    );
    const missing = loadConfig({ ...env, S3_ENDPOINT: s3.endpoint, S3_BUCKET: 'absent-bucket' });
    await openBlobStore(missing).then(
      () => assert.unreachable('must not open'),
      (e: Error) => assert.match(e.message, /"absent-bucket" .* does not exist/),
    );
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('configuration: BLOB_STORE=s3 needs S3_BUCKET; the default is the local disk', () => {
  assert.throws(() => loadConfig({ BLOB_STORE: 's3' }), /BLOB_STORE=s3 needs S3_BUCKET/);
  assert.throws(
    () => loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'only-one' }),
    /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/,
  );
  const local = loadConfig({});
  assert.is(local.blobStore, 'local');
  assert.is(local.s3, null);
});

test.run();
