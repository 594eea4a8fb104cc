/**
 * The whole server with BLOB_STORE=s3 (s3rver on 127.0.0.1): an image and a video are uploaded, ingested
 * (frames sampled by ffmpeg and renditions made by sharp from local copies of the S3 objects) and served
 * back through signed file URLs with ranges; nothing lands under DATA_DIR/files and no copy stays in tmp/.
 */
import { CreateBucketCommand, ListObjectsCommand } from '@aws-sdk/client-s3';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createS3Client } from '../../src/files/s3/s3Client.js';
import { testClip } from '../helpers/testClip.js';
import { makeImage, startTestApp, waitForProcessing, type TestApp } from '../helpers/testApp.js';
import { startS3, type TestS3 } from '../files/s3Server.js';

const t = suite<{ s3: TestS3; app: TestApp; ds: string; bucket: string }>('library on S3');

t.before(async (ctx) => {
  ctx.s3 = await startS3();
  ctx.bucket = 'library';
  const client = createS3Client(ctx.s3.settings(ctx.bucket));
  await client.send(new CreateBucketCommand({ Bucket: ctx.bucket }));
  client.destroy();
  ctx.app = await startTestApp(
    {},
    {
      BLOB_STORE: 's3',
      S3_ENDPOINT: ctx.s3.endpoint,
      S3_BUCKET: ctx.bucket,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
  );
  ctx.ds = await ctx.app.collection('On S3');
});
t.after(async ({ app, s3 }) => {
  await app.close();
  await s3.stop();
});

async function objectKeys(ctx: { s3: TestS3; bucket: string }): Promise<string[]> {
  const client = createS3Client(ctx.s3.settings(ctx.bucket));
  const page = await client.send(new ListObjectsCommand({ Bucket: ctx.bucket }));
  client.destroy();
  return (page.Contents ?? []).map((o) => o.Key!);
}

t('an image: stored in the bucket, ingested, its original and thumbnail served', async (ctx) => {
  const { app, ds } = ctx;
  const jpeg = await makeImage({ width: 900, height: 600 });
  const up = await app.upload({ datasetId: ds }, { bytes: jpeg, filename: 'red.jpg' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  const m = await waitForProcessing(app, up.body.media.id);
  assert.is(m.processingStatus, 'ready', m.processingError);
  const original = await fetch(m.blob);
  assert.is(original.status, 200);
  assert.equal(Buffer.from(await original.arrayBuffer()), jpeg);
  const thumb = await fetch(m.thumbnailUrl);
  assert.is(thumb.status, 200);
  assert.is(thumb.headers.get('content-type'), 'image/webp');
  const keys = await objectKeys(ctx);
  assert.ok(keys.includes(new URL(m.blob).pathname.split('/')[3]), 'the original is an object');
  assert.ok(keys.length >= 3, 'original, frame and renditions');
  assert.not.ok(existsSync(path.join(app.dataDir, 'files')) && readdirSync(path.join(app.dataDir, 'files')).length);
  assert.equal(readdirSync(path.join(app.dataDir, 'tmp')), [], 'no local copy left behind');
});

t('a video: frames sampled from a local copy, the original served with ranges', async ({ app, ds }) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 's3clip-'));
  try {
    const clip = readFileSync(await testClip(path.join(dir, 'clip.mp4'), '-c:v', 'libx264', '-pix_fmt', 'yuv420p'));
    const up = await app.upload({ datasetId: ds }, { bytes: clip, filename: 'clip.mp4' });
    assert.is(up.status, 200, JSON.stringify(up.body));
    const m = await waitForProcessing(app, up.body.media.id);
    assert.is(m.processingStatus, 'ready', m.processingError);
    assert.ok(m.frames.length >= 1);
    const ranged = await fetch(m.blob, { headers: { Range: 'bytes=0-9' } });
    assert.is(ranged.status, 206);
    assert.is(ranged.headers.get('content-range'), `bytes 0-9/${clip.length}`);
    assert.equal(Buffer.from(await ranged.arrayBuffer()), clip.subarray(0, 10));
    assert.is((await fetch(m.frames[0].thumbnailUrl)).status, 200);
    assert.equal(readdirSync(path.join(app.dataDir, 'tmp')), [], 'no local copy left behind');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
