/**
 * Issue 26, metadata: what ExifTool reads from the real files of ../shared/fixtures is on the media object
 * (takenAt with takenAtZone, camera, location; `exif` keeps its fields and gains `capture`), compared with
 * ExifTool's own output run here as a separate program. Skipped with a message when ../shared is absent.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sharedPath } from '../helpers/skip.js';
import { startTestApp, type TestApp } from '../helpers/testApp.js';

const t = suite<{ app: TestApp; ds: string }>('metadata');

t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  ctx.ds = await ctx.app.collection('Metadata');
});
t.after(async (ctx) => ctx.app.close());

const EXIFTOOL = path.resolve(import.meta.dirname, '../../node_modules/exiftool-vendored.pl/bin/exiftool');

/** ExifTool's own answer for one file, numbers as numbers (-n); the composite GPS tags carry the signs. */
function exiftool(file: string): Record<string, unknown> {
  const tags = ['-Make', '-Model', '-LensModel', '-Composite:GPSLatitude', '-Composite:GPSLongitude'];
  const gps = ['-Composite:GPSAltitude', '-GPSImgDirection'];
  const out = execFileSync('perl', [EXIFTOOL, '-j', '-n', ...tags, ...gps, file]);
  return JSON.parse(out.toString())[0];
}

async function uploaded(app: TestApp, ds: string, rel: string) {
  const p = sharedPath(`fixtures/${rel}`, 'metadata fixtures');
  if (!p) return null;
  const up = await app.upload({ datasetId: ds }, { bytes: readFileSync(p), filename: path.basename(rel) });
  assert.is(up.status, 200, JSON.stringify(up.body));
  const m = (await app.request('GET', `/api/media/${up.body.mediaId}`)).body.media;
  return { m, oracle: exiftool(p) };
}

const near = (a: number, b: number, eps = 1e-5) => Math.abs(a - b) < eps;

t('iPhone HEIC: local time with its offset, camera and lens, GPS with altitude', async ({ app, ds }) => {
  const got = await uploaded(app, ds, 'formats/heic_iphone11promax_gps_grid.heic');
  if (!got) return;
  const { m, oracle } = got;
  // DateTimeOriginal 2021:04:11 15:47:53.054, OffsetTimeOriginal -05:00.
  assert.is(m.takenAt, '2021-04-11T20:47:53.054Z');
  assert.is(m.takenAtZone, '-05:00');
  assert.equal(m.camera, { make: oracle.Make, model: oracle.Model, lens: oracle.LensModel });
  assert.ok(near(m.location.latitude, oracle.GPSLatitude as number), `lat ${m.location.latitude}`);
  assert.ok(near(m.location.longitude, oracle.GPSLongitude as number), `lon ${m.location.longitude}`);
  assert.ok(near(m.location.altitude, oracle.GPSAltitude as number, 0.01), `alt ${m.location.altitude}`);
  assert.is(m.location.place, null, 'no place names yet');
  assert.ok(near(m.exif.capture.location.direction, oracle.GPSImgDirection as number, 1e-6));
  assert.is(m.exif.capture.contentIdentifier, '570F1469-09C7-4E50-9875-05F21D5BD166');
  // The convenience fields hosted clients read are filled from EXIF for HEIC too.
  assert.is(m.exif.make, 'Apple');
  assert.ok(near(m.exif.latitude, oracle.GPSLatitude as number));
});

t('a camera JPEG without an offset: the zone comes from its GPS position, offline', async ({ app, ds }) => {
  const got = await uploaded(app, ds, 'images/exif_gps_DSCN0010.jpg');
  if (!got) return;
  const { m } = got;
  // 2008:10:22 16:28:39 in Tuscany (CEST, +02:00).
  assert.is(m.takenAt, '2008-10-22T14:28:39.000Z');
  assert.is(m.takenAtZone, '+02:00');
  assert.is(m.exif.capture.timeZone, 'Europe/Rome');
  assert.equal(m.camera, { make: 'NIKON', model: 'COOLPIX P6000', lens: null });
});

t('no offset and no GPS: takenAtZone null, the wall clock as UTC', async ({ app, ds }) => {
  const got = await uploaded(app, ds, 'formats/tiff_16bit_rgb.tiff');
  if (!got) return;
  const { m } = got;
  assert.is(m.takenAt, '2018-10-12T14:45:38.000Z');
  assert.is(m.takenAtZone, null);
  assert.equal(m.camera, { make: 'FUJIFILM', model: 'X-T2', lens: 'XF18-55mmF2.8-4 R LM OIS' });
  assert.is(m.location, null);
  // XMP keywords become tags of the `keywords` group.
  assert.ok(m.metadata.tags.keywords.includes('mountains'), JSON.stringify(m.metadata.tags));
  assert.is(m.exif.capture.exposure.focalLength, 42.5);
  assert.is(m.exif.capture.exposure.iso, 800);
});

t('RAW (CR3): camera, lens, exposure and offset from the RAW; the preview it is shown from', async ({ app, ds }) => {
  const got = await uploaded(app, ds, 'formats/cr3_canon_r6_truncated_with_preview.cr3');
  if (!got) return;
  const { m, oracle } = got;
  assert.is(m.takenAt, '2021-05-12T10:21:21.920Z');
  assert.is(m.takenAtZone, '+02:00');
  assert.equal(m.camera, { make: oracle.Make, model: oracle.Model, lens: oracle.LensModel });
  assert.equal(m.exif.rawPreview, { tag: 'PreviewImage', width: 1620, height: 1080 });
  assert.is(m.exif.capture.exposure.exposureTime, 0.25);
  assert.is(m.exif.capture.fileType, 'CR3');
});

t('video: a phone MOV gets its zone from its position, its rotation and codec', async ({ app, ds }) => {
  const got = await uploaded(app, ds, 'formats/mov_iphone6_h264_rotate90_gps.mov');
  if (!got) return;
  const { m } = got;
  assert.is(m.takenAtZone, '+03:00');
  assert.is(m.exif.capture.timeZone, 'Asia/Jerusalem');
  assert.ok(near(m.location.latitude, 32.0929) && near(m.location.longitude, 34.862), JSON.stringify(m.location));
  assert.is(m.exif.capture.video.rotation, 90);
  assert.is(m.exif.rotation, 90, 'ffprobe agrees');
  assert.equal(m.camera, { make: 'Apple', model: 'iPhone 6', lens: null });
});

t('a file that says nothing: every field null, nothing invented', async ({ app, ds }) => {
  const got = await uploaded(app, ds, 'formats/mp4_hevc_hev1_216x384.mp4');
  if (!got) return;
  const { m } = got;
  assert.is(m.takenAt, null, 'CreateDate 0000:00:00 is no date');
  assert.is(m.takenAtZone, null);
  assert.is(m.camera, null);
  assert.is(m.location, null);
});

t(
  'XMP written into a file: rating, title, description (becomes the description), keywords (become tags)',
  async ({ app, ds }) => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'xmp-')), 'rated.jpg');
    writeFileSync(
      file,
      await sharp({ create: { width: 32, height: 24, channels: 3, background: '#963' } })
        .jpeg()
        .toBuffer(),
    );
    const xmp = ['-XMP:Rating=4', '-XMP:Title=Harbour at dawn', '-XMP:Description=Boats in the fog'];
    execFileSync('perl', [
      EXIFTOOL,
      '-q',
      '-overwrite_original',
      ...xmp,
      '-XMP:Subject=boats',
      '-XMP:Subject=fog',
      file,
    ]);
    const up = await app.upload({ datasetId: ds }, { bytes: readFileSync(file), filename: 'rated.jpg' });
    assert.is(up.status, 200, JSON.stringify(up.body));
    const m = (await app.request('GET', `/api/media/${up.body.mediaId}`)).body.media;
    assert.is(m.exif.capture.rating, 4);
    assert.is(m.exif.capture.title, 'Harbour at dawn');
    assert.is(m.exif.capture.description, 'Boats in the fog');
    assert.is(m.metadata.description, 'Boats in the fog');
    assert.equal(m.metadata.tags.keywords, ['boats', 'fog']);
    const found = await app.request('GET', `/api/dataset/${ds}/media?tags=fog`);
    assert.ok(
      found.body.media.some((x: { id: string }) => x.id === m.id),
      'found by its keyword',
    );
  },
);

t('OpenAPI documents takenAtZone, camera and location on the media object', async ({ app }) => {
  const doc = (await app.request('GET', '/api/openapi.json')).body;
  const schema = doc.paths['/api/media/{mediaId}'].get.responses[200].content['application/json'].schema;
  const media = schema.properties.media.properties;
  for (const field of ['takenAt', 'takenAtZone', 'camera', 'location']) assert.ok(media[field], field);
  assert.ok(media.location.properties?.place ?? media.location.anyOf, 'location.place described');
});

t.run();
