import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../src/platform/errors.js';
import {
  IMAGE_FORMATS_SHARP_CAN_DECODE,
  SHARP_CAN_DECODE_HEIC,
  canDecodeImage,
  exifToJson,
  imageDecoderFor,
  probeImage,
} from '../../src/files/imageProbe.js';
import { orient } from '../../src/files/imageSources.js';
import { sharedPath } from '../helpers/skip.js';

const opts = { maxPixels: 1e8, frameMaxSide: 512 };
let dir = '';
test.before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'imgprobe-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function save(buf: Buffer, name: string): Promise<string> {
  const p = path.join(dir, name);
  await writeFile(p, buf);
  return p;
}

async function rejectsWith(p: Promise<unknown>, code: string, re?: RegExp): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, DomainError);
    assert.is((e as DomainError).code, code);
    if (re) assert.match((e as DomainError).message, re);
    return e as DomainError;
  }
  assert.unreachable('expected a rejection');
  throw new Error('unreachable');
}

/** A PNG that is only a header claiming width×height: a pixel bomb, and a few hundred bytes. */
function pngHeaderOnly(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

test('EXIF orientation 3 keeps dims; the frame is upright and bounded', async () => {
  const p = sharedPath('fixtures/images/exif_orientation_portrait_3.jpg', 'EXIF orientation fixture');
  if (!p) return;
  const r = await probeImage(p, opts);
  assert.is(r.format, 'jpeg');
  assert.is(r.width, 450);
  assert.is(r.height, 600);
  assert.is(r.exif.orientation, 3);
  assert.equal(r.exif.tags, {});
  assert.is(r.frame.ext, 'jpg');
  assert.is(r.frame.height, 512);
  assert.is(r.frame.width, 384);
  const m = await sharp(r.frame.buffer).metadata();
  assert.is(m.format, 'jpeg');
  assert.is(m.orientation, undefined, 'the frame is physically rotated, no orientation tag left');
});

test('EXIF orientation 6 swaps width and height', async () => {
  const p = sharedPath('fixtures/images/exif_canon_hdr_NO.jpg', 'EXIF orientation 6 fixture');
  if (!p) return;
  const r = await probeImage(p, opts);
  assert.is(r.exif.orientation, 6);
  assert.is(r.width, 1536);
  assert.is(r.height, 2048);
  assert.ok(r.frame.height > r.frame.width, 'frame is portrait');
  assert.is(r.exif.make, 'Canon');
});

test('GPS EXIF becomes signed decimal degrees, groups are plain JSON', async () => {
  const p = sharedPath('fixtures/images/exif_gps_DSCN0010.jpg', 'EXIF GPS fixture');
  if (!p) return;
  const r = await probeImage(p, opts);
  const e = r.exif as Record<string, any>;
  assert.type(e.latitude, 'number');
  assert.type(e.longitude, 'number');
  assert.ok(Math.abs(e.latitude - 43.4674) < 0.001, `latitude ${e.latitude}`);
  assert.ok(Math.abs(e.longitude - 11.8851) < 0.001, `longitude ${e.longitude}`);
  assert.is(e.make, 'NIKON');
  assert.is(e.model, 'COOLPIX P6000');
  assert.is(e.dateTimeOriginal, '2008-10-22T16:28:39.000Z');
  assert.is(e.iso, 64);
  assert.is(e.fNumber, 5.9);
  assert.is(e.Photo.ExifVersion, '0220', 'printable buffer rendered as text');
  assert.is(e.Photo.MakerNote, undefined, 'binary buffer dropped');
  assert.equal(e.GPSInfo.GPSLatitude, [43, 28, 2.814]);
  // Everything survives a JSON round trip unchanged (no Dates, Buffers, BigInts).
  assert.equal(JSON.parse(JSON.stringify(r.exif)), r.exif);
});

test('southern/western hemispheres and altitude below sea level are signed', async () => {
  const p = sharedPath('fixtures/images/exif_iphone_hdr_YES.jpg', 'iPhone EXIF fixture');
  if (p) {
    const e = (await probeImage(p, opts)).exif as Record<string, any>;
    assert.ok(e.longitude < 0, 'W is negative');
    assert.ok(Math.abs(e.altitude - 639.6) < 0.1);
    assert.is(e.lensModel, 'iPhone 6 back camera 4.15mm f/2.2');
  }
  // Built EXIF, no fixture needed: sharp writes the IFDs we give it.
  const buf = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
    .jpeg()
    .withExif({ IFD0: { Make: 'TestCam', Model: 'T-1' } })
    .toBuffer();
  const meta = await sharp(buf).metadata();
  const e = exifToJson(meta.exif!);
  assert.is(e.make, 'TestCam');
  assert.equal(e.tags, {});
});

test('a coco photo: dims, no EXIF → { tags: {} }', async () => {
  const p = sharedPath('fixtures/images/coco_000000000139.jpg', 'COCO photo fixture');
  if (!p) return;
  const r = await probeImage(p, opts);
  assert.is(r.width, 640);
  assert.is(r.height, 426);
  assert.equal(r.exif, { tags: {} });
  assert.is(r.frame.width, 512);
  assert.is(r.frame.height, 341);
});

test('small images are not enlarged; PNG with alpha gives a WebP frame', async () => {
  const png = await sharp({
    create: { width: 40, height: 30, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } },
  })
    .png()
    .toBuffer();
  const r = await probeImage(await save(png, 'alpha.png'), opts);
  assert.is(r.width, 40);
  assert.is(r.height, 30);
  assert.is(r.format, 'png');
  assert.equal(r.exif, { tags: {} });
  assert.is(r.frame.ext, 'webp');
  assert.equal([r.frame.width, r.frame.height], [40, 30]);
  const m = await sharp(r.frame.buffer).metadata();
  assert.is(m.format, 'webp');
  assert.ok(m.hasAlpha);
});

test('animated GIF and WebP: the frame is the first page only', async () => {
  const pages = await Promise.all(
    ['#f00', '#0f0', '#00f'].map((c) =>
      sharp({ create: { width: 20, height: 20, channels: 3, background: c } })
        .png()
        .toBuffer(),
    ),
  );
  for (const fmt of ['gif', 'webp'] as const) {
    const anim = await sharp(pages, { join: { animated: true } })
      [fmt]()
      .toBuffer();
    assert.is((await sharp(anim).metadata()).pages, 3);
    const r = await probeImage(await save(anim, `anim.${fmt}`), opts);
    assert.equal([r.width, r.height], [20, 20], fmt);
    assert.equal([r.frame.width, r.frame.height], [20, 20], fmt);
    const { channels } = await sharp(r.frame.buffer).stats();
    assert.ok(channels[0].mean > 200 && channels[1].mean < 60, `${fmt}: first page is the red one`);
  }
});

test('TIFF and AVIF decode with sharp; HEIC with sharp or libheif; RAW from its preview; no JPEG XL', async () => {
  const base = sharp({ create: { width: 32, height: 24, channels: 3, background: '#123456' } });
  const tif = await probeImage(await save(await base.clone().tiff().toBuffer(), 'a.tif'), opts);
  assert.is(tif.format, 'tiff');
  const avif = await probeImage(await save(await base.clone().avif({ effort: 0 }).toBuffer(), 'a.avif'), opts);
  assert.is(avif.format, 'heif');
  assert.equal([avif.width, avif.height], [32, 24]);
  assert.ok(canDecodeImage('avif'));
  assert.ok(canDecodeImage('jpg'));
  assert.ok(canDecodeImage('heic'));
  assert.is(imageDecoderFor('heic'), SHARP_CAN_DECODE_HEIC ? 'sharp' : 'heif');
  assert.is(imageDecoderFor('cr3'), 'raw');
  assert.is(imageDecoderFor('dng'), 'raw');
  assert.is(imageDecoderFor('jxl'), sharp.format.jxl?.input?.file ? 'sharp' : null);
  assert.is(IMAGE_FORMATS_SHARP_CAN_DECODE.has('mp4'), false);
});

test('pixel bomb: a header claiming 12000x12000 is refused before decoding', async () => {
  const p = await save(pngHeaderOnly(12000, 12000), 'bomb.png');
  const started = Date.now();
  await rejectsWith(probeImage(p, opts), 'unprocessable', /larger than 100 megapixels/);
  assert.ok(Date.now() - started < 1000, 'refused from the header, fast');
});

test('a real image over the limit is refused with the limit in the message', async () => {
  const png = await sharp({ create: { width: 1200, height: 1000, channels: 3, background: '#fff' } })
    .png()
    .toBuffer();
  await rejectsWith(
    probeImage(await save(png, 'big.png'), { maxPixels: 1e6, frameMaxSide: 512 }),
    'unprocessable',
    /larger than 1 megapixels/,
  );
});

test('garbage and truncated bytes are unprocessable with clear words', async () => {
  const junk = await save(Buffer.from('this is not an image at all, just text'), 'junk.jpg');
  const e = await rejectsWith(probeImage(junk, opts), 'unprocessable', /not a readable image/);
  assert.not.match(e.message, dir, 'no server paths in the message');
  const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#f00' } })
    .jpeg()
    .toBuffer();
  await rejectsWith(probeImage(await save(jpeg.subarray(0, 40), 'cut.jpg'), opts), 'unprocessable');
  const fakeHeader = Buffer.concat([pngHeaderOnly(64, 64).subarray(0, 33), Buffer.from('garbage garbage')]);
  await rejectsWith(probeImage(await save(fakeHeader, 'fake.png'), opts), 'unprocessable');
});

test("orient (a RAW preview turned by the RAW's orientation) matches sharp's own EXIF rotation for 1-8", async () => {
  const w = 3;
  const h = 2;
  const px = Buffer.alloc(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) px[y * w + x] = 40 * y + 10 * x + 5;
  const png = await sharp(px, { raw: { width: w, height: h, channels: 1 } })
    .png()
    .toBuffer();
  const pixels = async (s: Sharp) => [...(await s.extractChannel(0).raw().toBuffer())];
  for (let o = 1; o <= 8; o++) {
    const tagged = await sharp(png).withMetadata({ orientation: o }).png().toBuffer();
    const expected = await pixels(sharp(tagged).rotate());
    assert.equal(await pixels(orient(sharp(png), o)), expected, `orientation ${o}`);
  }
});

test('exifToJson never throws on junk', () => {
  assert.equal(exifToJson(Buffer.from('Exif\0\0garbage')), { tags: {} });
  assert.equal(exifToJson(Buffer.alloc(0)), { tags: {} });
});

test.run();
