/**
 * Renditions (thumbnails) through the real server with the stand-in models: a 256 px and a 768 px WebP of
 * every frame, made at ingest, never enlarged, upright; `thumbnailUrl` / `previewUrl` on items and frames,
 * signed and fetchable; the backfill of items that lack them; the orphan sweep keeps them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveFfmpeg } from '../../../src/files/binaries.js';
import { ingestMedia } from '../../../src/features/ingest/pipeline.js';
import { renderItem } from '../../../src/features/ingest/renditions.js';
import { createLogger } from '../../../src/platform/logger.js';
import { sharedPath } from '../../helpers/skip.js';
import { engineSql } from '../../helpers/engine.js';
import { makeImage, startTestApp, waitForProcessing, type TestApp } from '../../helpers/testApp.js';

const run = promisify(execFile);
const images = sharedPath('fixtures/images', 'renditions of fixture photos');

const t = suite<{ app: TestApp; ds: string }>('renditions');
t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Renditions');
});
t.after(async (ctx) => ctx.app.close());

/** Fetches a rendition URL: it must be a signed file URL answering a WebP; returns its size. */
async function fetchWebp(url: string | null, what: string): Promise<{ width: number; height: number; bytes: Buffer }> {
  assert.type(url, 'string', `${what}: a URL`);
  assert.match(url!, /\/files\/[A-Za-z0-9_-]{22}\/[0-9a-f]{64}\.webp$/, `${what}: a signed file URL`);
  const res = await fetch(url!);
  assert.is(res.status, 200, `${what}: fetchable`);
  assert.is(res.headers.get('content-type'), 'image/webp', `${what}: content type`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const meta = await sharp(bytes).metadata();
  assert.is(meta.format, 'webp', `${what}: WebP bytes`);
  return { width: meta.width!, height: meta.height!, bytes };
}

/** The size a side-bounded, never enlarged, aspect-keeping resize gives. */
function fitted(w: number, h: number, side: number): [number, number] {
  const scale = Math.min(1, side / Math.max(w, h));
  return [Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale))];
}

function assertSize(got: { width: number; height: number }, want: [number, number], what: string) {
  assert.ok(
    Math.abs(got.width - want[0]) <= 1 && Math.abs(got.height - want[1]) <= 1,
    `${what}: ${got.width}x${got.height}, expected ${want[0]}x${want[1]}`,
  );
}

/** An MP4 of ffmpeg's test pattern (its scene changes give a frame every second or so). */
async function testVideo(seconds: number, size: string): Promise<Buffer> {
  const file = path.join(os.tmpdir(), `renditions-${process.pid}-${seconds}-${size}.mp4`);
  await run(resolveFfmpeg(), [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc=duration=${seconds}:size=${size}:rate=10`],
    ...['-pix_fmt', 'yuv420p', file],
  ]);
  try {
    return await readFile(file);
  } finally {
    await rm(file, { force: true });
  }
}

async function uploadReady(app: TestApp, ds: string, bytes: Buffer, name: string) {
  const up = await app.upload({ datasetId: ds, name }, { bytes, filename: name });
  assert.is(up.status, 200, JSON.stringify(up.body));
  const m = await waitForProcessing(app, up.body.mediaId, 60_000);
  assert.is(m.processingStatus, 'ready', m.processingError);
  return m;
}

t(
  'a photo gets a 256 px thumbnail and a 768 px preview of its frame, WebP, on the item and the frame',
  async ({ app, ds }) => {
    if (!images) return;
    for (const name of ['coco_000000000139.jpg', 'exif_gps_DSCN0010.jpg']) {
      const m = await uploadReady(app, ds, readFileSync(path.join(images, name)), name);
      const f = m.frames[0];
      const thumb = await fetchWebp(m.thumbnailUrl, `${name} thumbnail`);
      const preview = await fetchWebp(m.previewUrl, `${name} preview`);
      assertSize(thumb, fitted(f.width, f.height, 256), `${name} thumbnail`);
      assertSize(preview, fitted(f.width, f.height, 768), `${name} preview`);
      assert.is(f.thumbnailUrl, m.thumbnailUrl, 'the item thumbnail is its frame’s');
      assert.is(f.previewUrl, m.previewUrl);
      assert.ok(thumb.bytes.length < 40_000, `thumbnail is small (${thumb.bytes.length} bytes)`);
    }
  },
);

t('renditions are never enlarged and follow EXIF orientation', async ({ app, ds }) => {
  const tiny = await uploadReady(app, ds, await makeImage({ width: 64, height: 48 }), 'tiny.jpg');
  assertSize(await fetchWebp(tiny.thumbnailUrl, 'tiny thumbnail'), [64, 48], 'tiny thumbnail');
  assertSize(await fetchWebp(tiny.previewUrl, 'tiny preview'), [64, 48], 'tiny preview');

  // Stored landscape (1200x600, left half red) with orientation 6: shown portrait, 600x1200, red on top.
  const landscape = await sharp({ create: { width: 1200, height: 600, channels: 3, background: '#2040ff' } })
    .composite([
      { input: await makeImage({ width: 600, height: 600, color: { r: 230, g: 20, b: 20 } }), left: 0, top: 0 },
    ])
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
  const m = await uploadReady(app, ds, landscape, 'rotated.jpg');
  assert.is(m.width, 600);
  assert.is(m.height, 1200);
  const thumb = await fetchWebp(m.thumbnailUrl, 'rotated thumbnail');
  assertSize(thumb, [128, 256], 'rotated thumbnail is upright');
  assertSize(await fetchWebp(m.previewUrl, 'rotated preview'), [384, 768], 'rotated preview');
  const { data } = await sharp(thumb.bytes).raw().toBuffer({ resolveWithObject: true });
  const pixel = (x: number, y: number) => [...data.subarray((y * 128 + x) * 3, (y * 128 + x) * 3 + 3)];
  const [r1, , b1] = pixel(64, 32);
  const [r2, , b2] = pixel(64, 224);
  assert.ok(r1 > 150 && b1 < 100, `top is red: ${pixel(64, 32)}`);
  assert.ok(b2 > 150 && r2 < 100, `bottom is blue: ${pixel(64, 224)}`);
});

t("a video's frames each get renditions; the item's are its first frame's", async ({ app, ds }) => {
  const m = await uploadReady(app, ds, await testVideo(4, '640x360'), 'clip.mp4');
  assert.ok(m.frames.length >= 2, `${m.frames.length} frames`);
  for (const f of m.frames) {
    assertSize(await fetchWebp(f.thumbnailUrl, `frame ${f.timestamp} thumbnail`), [256, 144], 'frame thumbnail');
    assertSize(
      await fetchWebp(f.previewUrl, `frame ${f.timestamp} preview`),
      fitted(f.width, f.height, 768),
      'preview',
    );
  }
  assert.is(m.thumbnailUrl, m.frames[0].thumbnailUrl);
  assert.is(m.previewUrl, m.frames[0].previewUrl);
  assert.is(new Set(m.frames.map((f: any) => f.thumbnailUrl)).size, m.frames.length, 'one thumbnail per frame');
});

t('browse, search results and their matching frames carry the renditions', async ({ app, ds }) => {
  const list = await app.request('GET', `/api/dataset/${ds}/media?recursive=true&limit=100`);
  assert.is(list.status, 200);
  for (const m of list.body.media) {
    assert.type(m.thumbnailUrl, 'string', `${m.name} in browse`);
    for (const f of m.frames) assert.type(f.previewUrl, 'string');
  }
  const scored = await app.request('GET', `/api/dataset/${ds}/media?q=red&minScore=0&limit=5`);
  assert.is(scored.status, 200);
  assert.ok(scored.body.media.length > 0);
  for (const m of scored.body.media)
    for (const f of m._matchingFrames) {
      const frame = m.frames.find((x: any) => x.id === f.id);
      assert.is(f.thumbnailUrl, frame.thumbnailUrl, 'matching frame thumbnail');
      assert.is(f.previewUrl, frame.previewUrl);
    }
  const org = await app.request('GET', `/api/search?q=red&organizationId=${app.orgId}&limit=5`);
  assert.is(org.status, 200);
  assert.ok(org.body.results.length > 0);
  for (const r of org.body.results) await fetchWebp(r.thumbnailUrl, 'organization search result thumbnail');
});

t('the orphan sweep keeps renditions, also of deleted items, and removes an unreferenced one', async ({ app, ds }) => {
  const m = await uploadReady(app, ds, await makeImage({ width: 300, height: 200, format: 'png' }), 'kept.png');
  const { blobs, storage } = app.app.services;
  const stray = await blobs.putBuffer(
    await sharp(await makeImage())
      .webp()
      .toBuffer(),
    'webp',
  );
  assert.is((await app.request('DELETE', `/api/media/${m.id}`)).status, 200);
  await blobs.sweepOrphans((keys) => storage.media.referencedBlobKeys(keys), 0);
  await fetchWebp(m.thumbnailUrl, 'deleted item thumbnail after the sweep');
  await fetchWebp(m.previewUrl, 'deleted item preview after the sweep');
  assert.not.ok(await blobs.exists(stray.key), 'an unreferenced WebP is swept');
  const live = await app.request('GET', `/api/dataset/${ds}/media?recursive=true&limit=100`);
  for (const item of live.body.media) await fetchWebp(item.thumbnailUrl, `${item.name} after the sweep`);
});

t(
  'the stage resumes at the first frame lacking renditions; a failure queues a renditions job, the item stays ready',
  async ({ app, ds }) => {
    const { services } = app.app;
    const m = await uploadReady(app, ds, await testVideo(5, '320x240'), 'resume.mp4');
    assert.ok(m.frames.length >= 3, `${m.frames.length} frames`);
    // As if a crash came after the first frame's renditions.
    const later: string[] = m.frames.slice(1).map((f: any) => f.id);
    for (const id of later)
      await engineSql(app).run(`UPDATE frames SET thumbnail_key = NULL, preview_key = NULL WHERE id = ?`, id);
    const written: string[] = [];
    const analysis = services.storage.analysis;
    const counting = {
      ...services,
      storage: {
        ...services.storage,
        analysis: {
          ...analysis,
          setFrameRenditions: async (frameId: string, from: string, r: any) => {
            written.push(frameId);
            return analysis.setFrameRenditions(frameId, from, r);
          },
        },
      },
    };
    await renderItem(counting, m.id, new AbortController().signal);
    assert.equal(written, later, 'only the frames that lacked them, in order');
    const again = (await app.request('GET', `/api/media/${m.id}`)).body.media;
    assert.equal(
      again.frames.map((f: any) => f.thumbnailUrl),
      m.frames.map((f: any) => f.thumbnailUrl),
      'the same files (content-addressed)',
    );

    // A stage that cannot store its files: the item still becomes ready, and its own job makes them later.
    await engineSql(app).run(`UPDATE frames SET thumbnail_key = NULL, preview_key = NULL WHERE media_id = ?`, m.id);
    const failing = Object.create(services.blobs) as typeof services.blobs;
    failing.putBuffer = async (buf, ext) => {
      if (ext === 'webp') throw new Error('disk full');
      return services.blobs.putBuffer(buf, ext);
    };
    const outcome = await ingestMedia({ ...services, blobs: failing }, m.id, {
      signal: new AbortController().signal,
      progress: async () => undefined,
      logger: createLogger('silent'),
    });
    assert.is(outcome, 'done');
    assert.is((await services.storage.media.get(m.id))!.processingStatus, 'ready');
    const jobs = await services.storage.jobs.list({ type: 'renditions', limit: 10 });
    assert.ok(
      jobs.items.some((j) => (j.payload as { mediaId: string }).mediaId === m.id),
      'a renditions job for the item',
    );
    await waitUntil(
      async () => (await services.storage.analysis.framesOf(m.id)).every((f) => f.thumbnailKey && f.previewKey),
      'the job made them',
    );
  },
);

t('the backfill gives renditions to items that lack them, after a restart, and reports its progress', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'renditions-backfill-'));
  let app = await startTestApp({ dataDir });
  try {
    const ds = await app.collection('Old items');
    const a = await uploadReady(app, ds, await makeImage({ width: 500, height: 400, format: 'png' }), 'old-a.png');
    const b = await uploadReady(app, ds, await makeImage({ width: 400, height: 500 }), 'old-b.jpg');
    // As if stored before renditions existed.
    await engineSql(app).run(`UPDATE frames SET thumbnail_key = NULL, preview_key = NULL`);
    const bare = await app.request('GET', `/api/media/${a.id}`);
    assert.is(bare.body.media.thumbnailUrl, null, 'null until made');
    assert.is(bare.body.media.frames[0].previewUrl, null);

    await app.close();
    const started = Date.now();
    app = await startTestApp({ dataDir });
    assert.ok(Date.now() - started < 10_000, 'start-up does not wait for the backfill');
    const { storage } = app.app.services;
    await waitUntil(async () => (await storage.analysis.itemsLackingRenditions(10)).length === 0, 'backfilled');
    for (const id of [a.id, b.id]) {
      const m = (await app.request('GET', `/api/media/${id}`)).body.media;
      const f = m.frames[0];
      assertSize(await fetchWebp(m.thumbnailUrl, 'backfilled'), fitted(f.width, f.height, 256), 'backfilled size');
      assert.is(f.thumbnailUrl, m.thumbnailUrl);
    }
    // The organization hears how many are left, down to 0 once done.
    await waitUntil(async () => {
      const log = await storage.events.after({ organizationId: app.orgId, afterId: 0, limit: 1000 });
      const reports = log.filter((e) => e.type === 'job.progress' && e.data.job === 'renditions');
      return reports.length > 0 && reports[reports.length - 1].data.remaining === 0;
    }, 'a final job.progress report');
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

t.run();
