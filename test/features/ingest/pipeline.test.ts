import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { newMediaId } from '../../../src/platform/ids.js';
import { enqueueIngest } from '../../../src/features/ingest/jobs.js';
import { sharedPath } from '../../helpers/skip.js';
import { startTestApp, waitForProcessing, type TestApp } from '../../helpers/testApp.js';

/**
 * The ingest pipeline end to end through the real server, with the stand-in
 * models (MODEL_PROFILE=test): the YOLOX stand-in "detects" red regions as a
 * stop sign, the captioner names the dominant colour, OCR is the real
 * PP-OCRv4 from its npm package.
 */
const t = suite<{ app: TestApp; ds: string }>('ingest pipeline');
t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Ingest');
});
t.after(async (ctx) => ctx.app.close());

/** A white picture with a red square: one "object" for the YOLOX stand-in, a caption for the captioner stand-in. */
const redSquare = () =>
  sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 250, g: 250, b: 250 } } })
    .composite([
      {
        input: { create: { width: 96, height: 80, channels: 3, background: { r: 230, g: 10, b: 10 } } },
        left: 112,
        top: 64,
      },
    ])
    .jpeg()
    .toBuffer();

const inside = (p: { x: number; y: number }[], w: number, h: number) =>
  p.every((q) => q.x >= 0 && q.y >= 0 && q.x <= w && q.y <= h);

t(
  'an image becomes ready with a caption, a frame object, detected objects, moderation and a description',
  async ({ app, ds }) => {
    const up = await app.upload(
      { datasetId: ds, name: 'square.jpg' },
      { bytes: await redSquare(), filename: 'square.jpg' },
    );
    assert.is(up.status, 200);
    const m = await waitForProcessing(app, up.body.mediaId);
    assert.is(m.processingStatus, 'ready', m.processingError);
    assert.is(m.frames.length, 1);
    const f = m.frames[0];
    assert.is(f.captions.length, 1);
    assert.match(f.captions[0].text, /white|red/);
    assert.match(f.captions[0].model, /^florence-2-base:/, 'caption names model and version');
    const frameObj = f.objects.filter((o: { type: string }) => o.type === 'frame');
    assert.is(frameObj.length, 1, 'one frame object per frame');
    assert.equal(frameObj[0].polygon, [
      { x: 0, y: 0 },
      { x: f.width, y: 0 },
      { x: f.width, y: f.height },
      { x: 0, y: f.height },
    ]);
    assert.is(m.frameObjectId, frameObj[0].id);
    const objects = f.objects.filter((o: { type: string }) => o.type === 'object');
    assert.is(objects.length, 1, JSON.stringify(f.objects));
    assert.is(objects[0].label, 'stop sign');
    assert.is(objects[0].polygon.length, 4);
    assert.ok(inside(objects[0].polygon, f.width, f.height));
    assert.match(objects[0].model, /^yolox-s:/);
    const crop = await fetch(objects[0].blob);
    assert.is(crop.status, 200);
    const meta = await sharp(Buffer.from(await crop.arrayBuffer())).metadata();
    assert.ok(Math.abs(meta.width! - 96) <= 8 && Math.abs(meta.height! - 80) <= 8, `crop ${meta.width}x${meta.height}`);
    assert.is(m.metadata.moderation.status, 'approved');
    assert.equal(m.metadata.moderation.categories, []);
    assert.type(m.metadata.moderation.moderatedAt, 'string');
    assert.is(m.metadata.description, f.captions[0].text);
  },
);

t('reprocessing is idempotent and keeps what the user wrote in metadata', async ({ app, ds }) => {
  const up = await app.upload({ datasetId: ds }, { bytes: await redSquare(), filename: 'again.jpg' });
  const first = await waitForProcessing(app, up.body.mediaId);
  await app.request('PATCH', `/api/media/${up.body.mediaId}`, {
    body: { metadata: { ...first.metadata, description: 'my own words' } },
  });
  for (let i = 0; i < 2; i++) {
    const r = await app.request('POST', `/api/media/${up.body.mediaId}/reprocess`);
    assert.is(r.status, 202);
    assert.is(r.body.mediaId, up.body.mediaId);
    await new Promise((res) => setTimeout(res, 50));
    const m = await waitForProcessing(app, up.body.mediaId);
    assert.is(m.processingStatus, 'ready');
    assert.is(m.frames.length, 1);
    assert.is(m.frames[0].captions.length, 1, 'no duplicate captions');
    assert.is(m.frames[0].objects.length, first.frames[0].objects.length, 'no duplicate objects');
    assert.is(m.metadata.description, 'my own words', 'the user description survives');
  }
});

t("the user's corrections survive reprocessing: edited label, deleted object, own caption", async ({ app, ds }) => {
  const twoSquares = await sharp({
    create: { width: 400, height: 240, channels: 3, background: { r: 250, g: 250, b: 250 } },
  })
    .composite([
      {
        input: { create: { width: 80, height: 80, channels: 3, background: { r: 230, g: 10, b: 10 } } },
        left: 40,
        top: 60,
      },
    ])
    .jpeg()
    .toBuffer();
  const up = await app.upload({ datasetId: ds }, { bytes: twoSquares, filename: 'fix.jpg' });
  const m = await waitForProcessing(app, up.body.mediaId);
  const frame = m.frames[0];
  const object = frame.objects.find((o: { type: string }) => o.type === 'object');
  const frameObject = frame.objects.find((o: { type: string }) => o.type === 'frame');
  const relabel = await app.request('PATCH', `/api/objects/${object.id}`, { body: { label: 'red box' } });
  assert.is(relabel.status, 200, JSON.stringify(relabel.body));
  assert.is(relabel.body.object.label, 'red box');
  const cap = await app.request('POST', `/api/frames/${frame.id}/captions`, { body: { text: 'my red box on white' } });
  assert.is(cap.status, 200);
  assert.is(cap.body.frame.captions.length, 2);
  await app.request('POST', `/api/media/${up.body.mediaId}/reprocess`);
  await new Promise((res) => setTimeout(res, 50));
  let after = await waitForProcessing(app, up.body.mediaId);
  let objects = after.frames[0].objects.filter((o: { type: string }) => o.type === 'object');
  assert.equal(
    objects.map((o: { label: string }) => o.label),
    ['red box'],
    'the edited object stays and is not detected twice',
  );
  assert.ok(after.frames[0].captions.some((c: { text: string }) => c.text === 'my red box on white'));
  assert.is(after.frames[0].captions.length, 2, "one model caption plus the user's");
  // Deleting: the object is gone and stays gone after reprocessing.
  assert.is((await app.request('DELETE', `/api/objects/${objects[0].id}`)).status, 200);
  await app.request('POST', `/api/media/${up.body.mediaId}/reprocess`);
  await new Promise((res) => setTimeout(res, 50));
  after = await waitForProcessing(app, up.body.mediaId);
  objects = after.frames[0].objects.filter((o: { type: string }) => o.type === 'object');
  assert.is(objects.length, 0, JSON.stringify(objects));
  assert.ok(after.frames[0].objects.some((o: { type: string }) => o.type === 'frame'));
  assert.is.not(frameObject, undefined);
  assert.is((await app.request('PATCH', `/api/objects/${'0'.repeat(32)}`, { body: { label: 'x' } })).status, 404);
});

t('a video gets sampled frames with ascending timestamps, each analysed', async ({ app, ds }) => {
  const file = sharedPath('fixtures/videos/asl_eat.mkv', 'video ingest');
  if (!file) return;
  const up = await app.upload({ datasetId: ds }, { bytes: readFileSync(file), filename: 'eat.mkv' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  const m = await waitForProcessing(app, up.body.mediaId, 60_000);
  assert.is(m.processingStatus, 'ready', m.processingError);
  assert.ok(m.frames.length >= 2, `${m.frames.length} frames`);
  const ts = m.frames.map((f: { timestamp: string }) => Number(f.timestamp));
  assert.is(ts[0], 0, 'the poster is frame 0');
  for (let i = 1; i < ts.length; i++) assert.ok(ts[i] > ts[i - 1], `ascending ${ts}`);
  assert.ok(ts[ts.length - 1] <= m.duration, `within ${m.duration}`);
  for (const f of m.frames) {
    assert.type(f.timestamp, 'string');
    assert.is(f.captions.length, 1);
    assert.is(f.objects.filter((o: { type: string }) => o.type === 'frame').length, 1);
    assert.is((await fetch(f.blob)).status, 200);
  }
});

t('a corrupt video ends failed with a reason; the server stays healthy; jobs list it', async ({ app, ds }) => {
  // A video row whose file does not decode (as if it were damaged after upload).
  const s = app.app.services;
  const garbage = await s.blobs.putBuffer(
    Buffer.from('this is not a video at all, just some bytes'.repeat(100)),
    'mp4',
  );
  const collection = (await s.storage.collections.get(ds))!;
  const id = newMediaId();
  await s.storage.media.insert(
    {
      id,
      collectionId: ds,
      organizationId: collection.organizationId,
      parentPath: ds.replace(/-/g, ''),
      type: 'video',
      name: 'broken.mp4',
      blobKey: garbage.key,
      mimeType: 'video/mp4',
      width: 640,
      height: 480,
      duration: 10,
      sizeBytes: garbage.sizeBytes,
      exif: { tags: {} },
      metadata: {},
      processingStatus: 'pending',
      createdById: collection.createdById,
    },
    [],
  );
  await enqueueIngest(s, id);
  const m = await waitForProcessing(app, id);
  assert.is(m.processingStatus, 'failed');
  assert.match(m.processingError, /could not be decoded|not a video|damaged/);
  assert.not.match(m.processingError, /\/tmp\/|\/work\//, 'no server paths in the reason');
  assert.is((await app.request('GET', '/healthz', { key: null })).status, 200);
  assert.is((await fetch(m.blob)).status, 200, 'the original file is kept');
  const jobs = await app.request('GET', '/api/jobs?status=failed');
  assert.is(jobs.status, 200);
  const job = jobs.body.jobs.find((j: { mediaId: string }) => j.mediaId === id);
  assert.ok(job, JSON.stringify(jobs.body));
  assert.match(job.lastError, /decoded|video/);
  assert.type(jobs.body.stats.failed, 'number');
});

t('GET /api/jobs is for admins; reprocess needs a member', async ({ app }) => {
  const viewer = (await app.request('POST', '/api/keys', { body: { role: 'viewer' } })).body.key;
  const member = (await app.request('POST', '/api/keys', { body: { role: 'member' } })).body.key;
  assert.is((await app.request('GET', '/api/jobs', { key: member })).status, 403);
  const ds = await app.collection('Jobs');
  const up = await app.upload({ datasetId: ds }, { bytes: await redSquare(), filename: 'x.jpg' });
  assert.is((await app.request('POST', `/api/media/${up.body.mediaId}/reprocess`, { key: viewer })).status, 403);
  assert.is((await app.request('POST', `/api/media/${up.body.mediaId}/reprocess`, { key: member })).status, 202);
  await waitForProcessing(app, up.body.mediaId);
});

t.run();
