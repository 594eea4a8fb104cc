/**
 * Issue 26, browser playback: a video a browser cannot play as stored (HEVC, MJPEG AVI) gets an H.264/AAC
 * MP4 web copy with faststart after its analysis, made by the low-priority `web-video` job; `playbackUrl`
 * names it, served with Range; the original stays as it was. A video browsers play needs none: its
 * playbackUrl is the original. Fixtures from ../shared (skipped with a message when absent).
 */
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveFfprobe } from '../../src/files/binaries.js';
import { probeVideo } from '../../src/files/videoProbe.js';
import { needsWebVideo } from '../../src/files/webPlayable.js';
import { webVideoArgs } from '../../src/features/ingest/webVideo.js';
import { sharedPath } from '../helpers/skip.js';
import { startTestApp, waitForProcessing, type TestApp } from '../helpers/testApp.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const t = suite<{ app: TestApp; ds: string; dir: string }>('web video');

t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Playback');
  ctx.dir = mkdtempSync(path.join(os.tmpdir(), 'webvideo-'));
});
t.after(async (ctx) => ctx.app.close());

/** Polls the item until its playbackUrl is set. */
async function playbackOf(app: TestApp, id: string, timeoutMs = 120_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const m = (await app.request('GET', `/api/media/${id}`)).body.media;
    if (m.playbackUrl) return m;
    if (Date.now() > until) throw new Error(`no web copy of ${m.name} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const cases: Array<[string, [number, number]]> = [
  ['mp4_hevc_hev1_216x384.mp4', [216, 384]],
  ['avi_mjpeg_vtech_kidizoom.avi', [320, 240]],
];

for (const [file, size] of cases) {
  t(`${file}: an H.264 MP4 web copy with faststart, served with Range; the original kept`, async (c) => {
    const p = sharedPath(`fixtures/formats/${file}`, 'format fixtures');
    if (!p) return;
    const bytes = readFileSync(p);
    const up = await c.app.upload({ datasetId: c.ds }, { bytes, filename: file });
    assert.is(up.status, 200, JSON.stringify(up.body));
    const ready = await waitForProcessing(c.app, up.body.mediaId, 60_000);
    assert.is(ready.processingStatus, 'ready', ready.processingError);
    const m = await playbackOf(c.app, up.body.mediaId);
    assert.is.not(m.playbackUrl, m.blob);
    assert.is(m.exif.webVideo.codec, 'h264');
    assert.equal([m.exif.webVideo.width, m.exif.webVideo.height], size);
    const copy = Buffer.from(await (await fetch(m.playbackUrl)).arrayBuffer());
    assert.is(copy.length, m.exif.webVideo.sizeBytes);
    // faststart: the index (moov) comes before the media data (mdat).
    const moov = copy.indexOf('moov');
    const mdat = copy.indexOf('mdat');
    assert.ok(moov > 0 && moov < mdat, `moov at ${moov}, mdat at ${mdat}`);
    const out = path.join(c.dir, `${file}.mp4`);
    writeFileSync(out, copy);
    const probe = await probeVideo(out, resolveFfprobe());
    assert.is(probe.codec, 'h264');
    assert.equal([probe.width, probe.height], size);
    assert.is(probe.rotation, 0);
    const part = await fetch(m.playbackUrl, { headers: { range: 'bytes=0-99' } });
    assert.is(part.status, 206);
    assert.is(part.headers.get('content-type'), 'video/mp4');
    await part.arrayBuffer();
    const original = Buffer.from(await (await fetch(m.blob)).arrayBuffer());
    assert.ok(original.equals(bytes), 'the original is served as uploaded');
  });
}

t('a video browsers play needs no copy: playbackUrl is the original', async (c) => {
  const p = sharedPath('fixtures/formats/mov_iphone6_h264_rotate90_gps.mov', 'format fixtures');
  if (!p) return;
  const up = await c.app.upload({ datasetId: c.ds }, { bytes: readFileSync(p), filename: 'IMG_0001.MOV' });
  const m = await waitForProcessing(c.app, up.body.mediaId, 60_000);
  assert.is(m.playbackUrl, m.blob);
  assert.is(m.exif.webVideo, undefined);
  const img = (await c.app.request('GET', `/api/dataset/${c.ds}/media?type=image`)).body.media;
  for (const i of img) assert.is(i.playbackUrl, null);
});

t('which videos need a copy; the copy is capped at 1920 px, yuv420p, H.264 High, AAC, faststart', () => {
  const video = (codec: string, mimeType: string) => ({ type: 'video' as const, mimeType, exif: { codec } });
  assert.ok(needsWebVideo(video('hevc', 'video/quicktime')));
  assert.ok(needsWebVideo(video('mjpeg', 'video/x-msvideo')));
  assert.ok(needsWebVideo(video('h263', 'video/3gpp')));
  assert.ok(needsWebVideo(video('h264', 'video/x-matroska')));
  assert.not.ok(needsWebVideo(video('h264', 'video/mp4')));
  assert.not.ok(needsWebVideo(video('vp9', 'video/webm')));
  assert.not.ok(needsWebVideo({ type: 'image', mimeType: 'image/heic', exif: {} }));
  const args = webVideoArgs('/in.mov', '/out.mp4').join(' ');
  for (const part of ['libx264', 'min(iw,1920)', 'format=yuv420p', '-profile:v high', '-c:a aac', '+faststart']) {
    assert.ok(args.includes(part), part);
  }
  assert.ok(args.includes('file:/in.mov') && args.includes('file:/out.mp4'), 'file: protocol only');
});

t.run();
