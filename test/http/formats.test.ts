/**
 * Issue 26, formats: the real files of ../shared/fixtures/formats uploaded through POST /api/upload/multipart
 * and ingested with the stand-in models: each becomes `ready` with the right type, MIME type, upright
 * dimensions and a thumbnail, and its original is served byte for byte. Skipped with a message when
 * ../shared is absent.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sharedPath } from '../helpers/skip.js';
import { testClip } from '../helpers/testClip.js';
import { startTestApp, waitForProcessing, type TestApp } from '../helpers/testApp.js';

const t = suite<{ app: TestApp; ds: string }>('formats');

t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Formats');
});
t.after(async (ctx) => ctx.app.close());

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Case {
  file: string;
  type: 'image' | 'video';
  mime: string;
  /** Upright width × height of the item. */
  size: [number, number];
  /** Upright aspect of the frame (width / height), when it differs from the item's size (a RAW's preview). */
  frameAspect?: number;
}

const CASES: Case[] = [
  { file: 'heic_iphone11promax_gps_grid.heic', type: 'image', mime: 'image/heic', size: [2566, 3313] },
  { file: 'heic_iphone13pro_portrait_depth_gainmap_gps.heic', type: 'image', mime: 'image/heic', size: [4032, 3024] },
  { file: 'heic_alpha_512x512.heic', type: 'image', mime: 'image/heic', size: [512, 512] },
  { file: 'hif_canon_eosr5_10bit.hif', type: 'image', mime: 'image/heic', size: [2400, 1600] },
  { file: 'avif_olympus_epl8_exif.avif', type: 'image', mime: 'image/avif', size: [1920, 1080] },
  { file: 'avif_alpha_bbb.avif', type: 'image', mime: 'image/avif', size: [3840, 2160] },
  // An AV1 image sequence with no still item: its first frame, decoded by ffmpeg.
  { file: 'avif_sequence_av1_animated.avif', type: 'image', mime: 'image/avif', size: [800, 450] },
  { file: 'tiff_16bit_rgb.tiff', type: 'image', mime: 'image/tiff', size: [317, 211] },
  { file: 'png_rgba_alpha_2048x1536.png', type: 'image', mime: 'image/png', size: [2048, 1536] },
  { file: 'gif_animated_30frames.gif', type: 'image', mime: 'image/gif', size: [80, 80] },
  { file: 'webp_animated_lossy_101frames.webp', type: 'image', mime: 'image/webp', size: [320, 240] },
  {
    file: 'cr3_canon_r6_truncated_with_preview.cr3',
    type: 'image',
    mime: 'image/x-canon-cr3',
    size: [3408, 2272],
    frameAspect: 1620 / 1080,
  },
  {
    file: 'dng_nikon_z9_jxl_with_preview.dng',
    type: 'image',
    mime: 'image/x-adobe-dng',
    size: [5392, 3592],
    frameAspect: 256 / 171,
  },
  { file: 'mp4_hevc_hev1_216x384.mp4', type: 'video', mime: 'video/mp4', size: [216, 384] },
  { file: 'webm_vp9_1080x1080.webm', type: 'video', mime: 'video/webm', size: [1080, 1080] },
  { file: 'avi_mjpeg_vtech_kidizoom.avi', type: 'video', mime: 'video/x-msvideo', size: [320, 240] },
  { file: '3gp_h263_amr_ios.3gp', type: 'video', mime: 'video/3gpp', size: [176, 144] },
  // Stored 568x320 with a -90° display matrix: stands upright.
  { file: 'mov_iphone6_h264_rotate90_gps.mov', type: 'video', mime: 'video/quicktime', size: [320, 568] },
];

for (const c of CASES) {
  t(`${c.file}: upload → ready, ${c.size.join('x')}, thumbnail, original kept`, async ({ app, ds }) => {
    const p = sharedPath(`fixtures/formats/${c.file}`, 'format fixtures');
    if (!p) return;
    const bytes = readFileSync(p);
    const up = await app.upload({ datasetId: ds }, { bytes, filename: c.file, type: 'application/octet-stream' });
    assert.is(up.status, 200, JSON.stringify(up.body));
    const m = await waitForProcessing(app, up.body.mediaId, 60_000);
    assert.is(m.processingStatus, 'ready', `${c.file}: ${m.processingError}`);
    assert.is(m.type, c.type);
    assert.is(m.mimeType, c.mime);
    assert.equal([m.width, m.height], c.size, `${c.file} size`);
    assert.ok(m.frames.length >= 1, 'a frame');
    const frame = m.frames[0];
    const aspect = c.frameAspect ?? c.size[0] / c.size[1];
    assert.ok(Math.abs(frame.width / frame.height - aspect) < 0.02, `frame ${frame.width}x${frame.height} upright`);
    assert.type(m.thumbnailUrl, 'string', 'thumbnail made');
    const thumb = Buffer.from(await (await fetch(m.thumbnailUrl)).arrayBuffer());
    const tm = await sharp(thumb).metadata();
    assert.is(tm.format, 'webp');
    assert.ok(Math.abs(tm.width! / tm.height! - aspect) < 0.03, `thumbnail ${tm.width}x${tm.height} upright`);
    // Searchable by its caption (the stand-in captioner's words).
    const caption = m.frames[0].captions[0]?.text as string | undefined;
    assert.type(caption, 'string', 'captioned');
    const found = await app.request('GET', `/api/dataset/${ds}/media?q=${encodeURIComponent(caption!)}&limit=100`);
    assert.ok(
      found.body.media.some((x: { id: string }) => x.id === m.id),
      `found by "${caption}"`,
    );
    const original = await fetch(m.blob);
    assert.is(original.headers.get('content-type'), c.mime);
    assert.is(sha256(Buffer.from(await original.arrayBuffer())), sha256(bytes), 'original byte for byte');
  });
}

t('a 16-bit PNG and an AV1 MP4 (made here): ready, right size, thumbnail', async ({ app, ds }) => {
  const png16 = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
    .toColourspace('rgb16')
    .png()
    .toBuffer();
  assert.is((await sharp(png16).metadata()).depth, 'ushort', 'the PNG is 16-bit');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'formats-'));
  const av1 = await testClip(
    path.join(dir, 'av1.mp4'),
    '-c:v',
    'libaom-av1',
    '-cpu-used',
    '8',
    '-strict',
    'experimental',
  );
  for (const [bytes, name, type, mime] of [
    [png16, 'deep.png', 'image', 'image/png'],
    [readFileSync(av1), 'av1.mp4', 'video', 'video/mp4'],
  ] as const) {
    const up = await app.upload({ datasetId: ds }, { bytes, filename: name });
    assert.is(up.status, 200, JSON.stringify(up.body));
    const m = await waitForProcessing(app, up.body.mediaId, 60_000);
    assert.is(m.processingStatus, 'ready', `${name}: ${m.processingError}`);
    assert.equal([m.type, m.mimeType, m.width, m.height], [type, mime, 64, 48]);
    assert.type(m.thumbnailUrl, 'string');
    if (type === 'video') assert.is(m.exif.codec, 'av1');
  }
});

t('HEIC: the picture is decoded, not grey (grid tiles in place)', async ({ app, ds }) => {
  const p = sharedPath('fixtures/formats/heic_iphone11promax_gps_grid.heic', 'format fixtures');
  if (!p) return;
  const up = await app.upload({ datasetId: ds }, { bytes: readFileSync(p), filename: 'IMG_5195.HEIC' });
  const m = await waitForProcessing(app, up.body.mediaId, 60_000);
  const frame = Buffer.from(await (await fetch(m.frames[0].blob)).arrayBuffer());
  const stats = await sharp(frame).stats();
  // A purple flower on green leaves: varied pixels in every channel, not a flat fill.
  for (const ch of stats.channels.slice(0, 3)) assert.ok(ch.stdev > 20, `stdev ${ch.stdev}`);
});

t('an alpha HEIC keeps its transparency in the frame', async ({ app, ds }) => {
  const p = sharedPath('fixtures/formats/heic_alpha_512x512.heic', 'format fixtures');
  if (!p) return;
  const up = await app.upload({ datasetId: ds }, { bytes: readFileSync(p), filename: 'alpha.heic' });
  const m = await waitForProcessing(app, up.body.mediaId, 60_000);
  const frame = Buffer.from(await (await fetch(m.frames[0].blob)).arrayBuffer());
  const meta = await sharp(frame).metadata();
  assert.is(meta.format, 'webp');
  assert.ok(meta.hasAlpha, 'alpha kept');
  assert.not.ok((await sharp(frame).stats()).isOpaque, 'some pixels are transparent');
});

t.run();
