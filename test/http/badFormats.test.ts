/**
 * Issue 26, bad input: corrupt and truncated HEIC and RAW files, lying extensions, a 200-megapixel header,
 * a video without a video stream, garbage GPS and a date in the year 30000. Each gets a clear 4xx
 * `{error, message}` at upload with nothing stored, or is accepted with the nonsense left out; never a 5xx,
 * a hang or a half record. Fixtures from ../shared (skipped with a message when absent).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeHeic } from '../../src/files/heic/heicDecode.js';
import { extractRawPreview } from '../../src/files/rawPreview.js';
import { sharedPath } from '../helpers/skip.js';
import { ffmpegTo } from '../helpers/testClip.js';
import { startTestApp, waitForProcessing, type Reply, type TestApp } from '../helpers/testApp.js';

const t = suite<{ app: TestApp; ds: string; dir: string }>('bad formats');

t.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.ds = await ctx.app.collection('Bad input');
  ctx.dir = mkdtempSync(path.join(os.tmpdir(), 'badformats-'));
});
t.after(async (ctx) => ctx.app.close());

const EXIFTOOL = path.resolve(import.meta.dirname, '../../node_modules/exiftool-vendored.pl/bin/exiftool');

function storedFiles(dataDir: string): number {
  let n = 0;
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else n++;
    }
  };
  walk(path.join(dataDir, 'files'));
  return n;
}

/** An upload that must be refused with one of `statuses`, a message matching `words`, and nothing stored. */
async function refused(app: TestApp, ds: string, statuses: number[], bytes: Buffer, name: string, words: RegExp) {
  const before = storedFiles(app.dataDir);
  const r: Reply = await app.upload({ datasetId: ds }, { bytes, filename: name });
  assert.ok(statuses.includes(r.status), `${name}: ${r.status} ${JSON.stringify(r.body)}`);
  assert.type(r.body.error, 'string');
  assert.match(r.body.message, words, `${name}: ${r.body.message}`);
  assert.not.match(r.body.message, /\/tmp|\/work|DATA_DIR/, 'no server paths in the message');
  assert.is(storedFiles(app.dataDir), before, `${name}: nothing stored`);
  return r;
}

const fixture = (name: string) => {
  const p = sharedPath(`fixtures/formats/${name}`, 'format fixtures');
  return p ? readFileSync(p) : null;
};

t('HEIC: truncated, cut to its head, or with a broken meta box: 422 with words', async ({ app, ds }) => {
  const heic = fixture('heic_iphone11promax_gps_grid.heic');
  if (!heic) return;
  await refused(app, ds, [422], heic.subarray(0, 300_000), 'cut.heic', /truncated/);
  await refused(app, ds, [422], heic.subarray(0, 3000), 'head.heic', /HEIC|image/);
  const broken = Buffer.from(heic);
  for (let i = 40; i < 3000; i += 3) broken[i] ^= 0x5a; // the meta box: item locations, grid, properties
  await refused(app, ds, [415, 422], broken, 'broken.heic', /image|HEIC|decod/i);
});

t('HEIC decoding has a time limit: past it the decode thread is stopped', async () => {
  const p = sharedPath('fixtures/formats/heic_iphone13pro_portrait_depth_gainmap_gps.heic', 'format fixtures');
  if (!p) return;
  const err = await decodeHeic(p, 5).catch((e) => e);
  assert.is(err.code, 'unprocessable');
  assert.match(err.message, /could not be decoded in 0.005 s/);
});

t('RAW without a usable preview: 422 saying what this server does with RAWs', async ({ app, ds }) => {
  const cr3 = fixture('cr3_canon_r6_truncated_with_preview.cr3');
  const dng = fixture('dng_nikon_z9_jxl_with_preview.dng');
  if (!cr3 || !dng) return;
  // Cut before its 1620x1080 preview: only the 160x120 thumbnail is left.
  await refused(app, ds, [422], cr3.subarray(0, 60_000), 'IMG_0001.CR3', /no embedded preview.*160x120/);
  // Cut to 4 KB, ExifTool can no longer tell the DNG from a TIFF: sharp then finds it truncated.
  await refused(app, ds, [422], dng.subarray(0, 4000), 'cut.dng', /no embedded preview|could not be decoded/);
});

t('a RAW when ExifTool cannot run: 503 saying why (a server without Perl), not a wrong 422', async () => {
  const cr3 = sharedPath('fixtures/formats/cr3_canon_r6_truncated_with_preview.cr3', 'format fixtures');
  if (!cr3) return;
  const err = await extractRawPreview(cr3, null).catch((e) => e);
  assert.is(err.code, 'unavailable');
  assert.match(err.message, /ExifTool.*Perl/);
});

t('lying extensions: judged by the bytes either way', async ({ app, ds }) => {
  const heic = fixture('heic_alpha_512x512.heic');
  if (!heic) return;
  const up = await app.upload({ datasetId: ds }, { bytes: heic, filename: 'photo.jpg', type: 'image/jpeg' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  const m = await waitForProcessing(app, up.body.mediaId, 60_000);
  assert.is(m.processingStatus, 'ready', m.processingError);
  assert.is(m.mimeType, 'image/heic');
  const text = Buffer.from('not a photo at all\n'.repeat(50));
  await refused(app, ds, [415], text, 'IMG_0001.HEIC', /unsupported file type/);
  await refused(app, ds, [415], text, 'DSC_0001.NEF', /unsupported file type/);
});

t('JPEG XL: refused by name, 415', async ({ app, ds }) => {
  const jxl = fixture('jxl_16bit_gray_exif.jxl');
  if (!jxl) return;
  await refused(app, ds, [415], jxl, 'scan.jxl', /JXL images cannot be decoded/);
});

t('a 200-megapixel image is refused from its header, fast', async ({ app, ds }) => {
  // A PNG header claiming 20000 × 10000 over a tiny body.
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(20000, 0);
  ihdr.writeUInt32BE(10000, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
    .png()
    .toBuffer();
  const bomb = Buffer.from(png);
  ihdr.copy(bomb, 16); // the IHDR data of a sharp PNG starts at byte 16; the CRC no longer matches
  const started = Date.now();
  const r = await app.upload({ datasetId: ds }, { bytes: bomb, filename: 'huge.png' });
  assert.ok([415, 422].includes(r.status), `${r.status} ${JSON.stringify(r.body)}`);
  assert.ok(Date.now() - started < 5000, 'answered without decoding');
  // A real HEIC over a small limit: the pixel limit holds for libheif too (checked before decoding).
  const heic = fixture('heic_iphone13pro_portrait_depth_gainmap_gps.heic');
  if (!heic) return;
  const small = await startTestApp({ maxImagePixels: 1_000_000, ingestConcurrency: 0 });
  try {
    const ds2 = await small.collection('Small');
    await refused(small, ds2, [422], heic, 'big.heic', /larger than 1 megapixels \(4032x3024\)/);
  } finally {
    await small.close();
  }
});

t('a video with no video stream: 422', async ({ app, ds, dir }) => {
  const sine = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-c:a', 'aac'];
  const audio = await ffmpegTo(path.join(dir, 'sound.mp4'), ...sine).catch(() => null);
  if (!audio) return console.log('SKIP audio-only clip: ffmpeg could not make one');
  await refused(app, ds, [422], readFileSync(audio), 'voice.mp4', /no video stream/);
});

t(
  'a video whose header reads but whose pictures do not: accepted, then `failed` with the reason',
  async ({ app, ds }) => {
    const mp4 = fixture('mp4_hevc_hev1_216x384.mp4');
    if (!mp4) return;
    // Zero the media data (mdat) and keep the index (moov): ffprobe reads it, ffmpeg decodes no picture.
    const broken = Buffer.from(mp4);
    const at = broken.indexOf('mdat') - 4;
    broken.fill(0, at + 8, at + broken.readUInt32BE(at));
    const up = await app.upload({ datasetId: ds }, { bytes: broken, filename: 'zeroed.mp4' });
    assert.is(up.status, 200, JSON.stringify(up.body));
    const m = await waitForProcessing(app, up.body.mediaId, 60_000);
    assert.is(m.processingStatus, 'failed');
    assert.match(m.processingError, /video could not be decoded/);
    assert.not.match(m.processingError, /\/tmp|\/work|at .*\.ts:/, 'words, not paths or stacks');
  },
);

t('garbage GPS and a date in the year 30000: accepted, ready, the nonsense left out', async ({ app, ds, dir }) => {
  const file = path.join(dir, 'garbage.jpg');
  writeFileSync(
    file,
    await sharp({ create: { width: 32, height: 24, channels: 3, background: '#369' } })
      .jpeg()
      .toBuffer(),
  );
  const set = ['-GPSLatitude=200', '-GPSLatitudeRef=N', '-GPSLongitude=500', '-GPSLongitudeRef=E'];
  const dates = ['-DateTimeOriginal=30000:01:01 00:00:00', '-CreateDate=30000:01:01 00:00:00'];
  execFileSync('perl', [EXIFTOOL, '-q', '-overwrite_original', '-n', ...set, '-GPSAltitude=99999999', ...dates, file]);
  const up = await app.upload({ datasetId: ds }, { bytes: readFileSync(file), filename: 'garbage.jpg' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  const m = await waitForProcessing(app, up.body.mediaId, 60_000);
  assert.is(m.processingStatus, 'ready', m.processingError);
  assert.is(m.takenAt, null);
  assert.is(m.takenAtZone, null);
  assert.is(m.location, null);
  assert.is(m.exif.latitude, undefined);
});

t('the server is fine afterwards', async ({ app }) => {
  assert.is((await app.request('GET', '/api/me')).status, 200);
});

t.run();
