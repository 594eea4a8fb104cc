/**
 * Issue 26, Live Photos: the iPhone still and its movie (same Apple content identifier) become one item in
 * either order: the still, carrying the movie as `livePhoto`. Fixtures from ../shared (skipped when absent).
 */
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sharedPath } from '../helpers/skip.js';
import { startTestApp, waitForProcessing, type TestApp } from '../helpers/testApp.js';

const t = suite<{ app: TestApp }>('live photos');

t.before(async (ctx) => {
  ctx.app = await startTestApp();
});
t.after(async (ctx) => ctx.app.close());

function halves(): { still: Buffer; movie: Buffer } | null {
  const still = sharedPath('fixtures/formats/livephoto_iphone6s.jpg', 'Live Photo fixtures');
  const movie = sharedPath('fixtures/formats/livephoto_iphone6s.mov', 'Live Photo fixtures');
  return still && movie ? { still: readFileSync(still), movie: readFileSync(movie) } : null;
}

async function listed(app: TestApp, ds: string): Promise<any[]> {
  return (await app.request('GET', `/api/dataset/${ds}/media?recursive=true&limit=100`)).body.media;
}

async function checkPaired(app: TestApp, ds: string, movie: Buffer): Promise<any> {
  const items = await listed(app, ds);
  assert.equal(
    items.map((m) => [m.name, m.type]),
    [['IMG_0001.JPG', 'image']],
    'one item: the still',
  );
  const still = (await app.request('GET', `/api/media/${items[0].id}`)).body.media;
  assert.type(still.livePhoto?.motionUrl, 'string', JSON.stringify(still.livePhoto));
  assert.ok(Math.abs(still.livePhoto.duration - 1.233) < 0.05, `duration ${still.livePhoto.duration}`);
  const bytes = Buffer.from(await (await fetch(still.livePhoto.motionUrl)).arrayBuffer());
  assert.ok(bytes.equals(movie), 'the movie is kept whole');
  return still;
}

t('the movie after its still joins it: one item, the still, with its motion', async ({ app }) => {
  const files = halves();
  if (!files) return;
  const ds = await app.collection('Live, still first');
  const a = await app.upload({ datasetId: ds }, { bytes: files.still, filename: 'IMG_0001.JPG' });
  assert.is(a.status, 200, JSON.stringify(a.body));
  const b = await app.upload({ datasetId: ds }, { bytes: files.movie, filename: 'IMG_0001.MOV' });
  assert.is(b.status, 200, JSON.stringify(b.body));
  assert.is(b.body.mediaId, a.body.mediaId, "the movie's upload answers the still");
  const again = await app.upload({ datasetId: ds }, { bytes: files.movie, filename: 'IMG_0001.MOV' });
  assert.is(again.body.mediaId, a.body.mediaId, 'the same movie again (an import run twice): still one item');
  const still = await checkPaired(app, ds, files.movie);
  const ready = await waitForProcessing(app, still.id, 60_000);
  assert.is(ready.processingStatus, 'ready', ready.processingError);
  assert.type(ready.livePhoto.motionUrl, 'string', 'kept through the analysis');
});

t('the still after its movie takes it: the video item is gone, the still has the motion', async ({ app }) => {
  const files = halves();
  if (!files) return;
  const ds = await app.collection('Live, movie first');
  const b = await app.upload({ datasetId: ds }, { bytes: files.movie, filename: 'IMG_0001.MOV' });
  assert.is(b.status, 200, JSON.stringify(b.body));
  assert.equal(
    (await listed(app, ds)).map((m) => m.type),
    ['video'],
    'alone, the movie is a video',
  );
  const a = await app.upload({ datasetId: ds }, { bytes: files.still, filename: 'IMG_0001.JPG' });
  assert.is(a.status, 200, JSON.stringify(a.body));
  await checkPaired(app, ds, files.movie);
  assert.is((await app.request('GET', `/api/media/${b.body.mediaId}`)).status, 404, 'the video item is gone');
});

t('a photo with a content identifier but no movie is a plain photo', async ({ app }) => {
  const p = sharedPath('fixtures/formats/heic_iphone11promax_gps_grid.heic', 'format fixtures');
  if (!p) return;
  const ds = await app.collection('Live, alone');
  const up = await app.upload({ datasetId: ds }, { bytes: readFileSync(p), filename: 'IMG_5195.HEIC' });
  const m = (await app.request('GET', `/api/media/${up.body.mediaId}`)).body.media;
  assert.is(m.livePhoto, null);
  assert.is(m.playbackUrl, null);
});

t.run();
