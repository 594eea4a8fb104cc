/**
 * captureFacts (src/files/captureFacts.ts) on tags as exiftool-vendored gives them: zones, implausible values
 * left out, camera defaults not taken for descriptions, keywords in their three shapes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { captureFacts, formatOffset, withCaptureFacts } from '../../src/files/captureFacts.js';
import { ExifDateTime, type Tags } from '../../src/files/exifTool.js';

const tags = (t: Record<string, unknown>) => t as Tags;
const date = (iso: string, zone?: string) => ExifDateTime.fromISO(iso, zone)!;

test('a time with an offset is the true instant, with its zone; without one, the wall clock as UTC', () => {
  const withZone = captureFacts(tags({ DateTimeOriginal: date('2021-06-15T14:30:05+09:00') }), 'image');
  assert.is(withZone.takenAt, '2021-06-15T05:30:05.000Z');
  assert.is(withZone.takenAtZone, '+09:00');
  const wall = captureFacts(tags({ DateTimeOriginal: ExifDateTime.fromEXIF('2021:06:15 14:30:05')! }), 'image');
  assert.is(wall.takenAt, '2021-06-15T14:30:05.000Z');
  assert.is(wall.takenAtZone, null);
  // A video's UTC container time: the instant is right, the zone unknown.
  const video = captureFacts(
    tags({ CreateDate: date('2020-01-01T10:00:00Z'), tzSource: 'defaultVideosToUTC', tz: 'UTC' }),
    'video',
  );
  assert.equal([video.takenAt, video.takenAtZone], ['2020-01-01T10:00:00.000Z', null]);
  assert.is(formatOffset(-330), '-05:30');
});

test('implausible values are left out: far future, 0000 dates, latitude 200, 0/0, rating 9', () => {
  const f = captureFacts(
    tags({
      DateTimeOriginal: '30000:01:01 00:00:00',
      CreateDate: date('2999-01-01T00:00:00Z'),
      GPSLatitude: 200,
      GPSLongitude: 10,
      Rating: 9,
      ISO: -5,
    }),
    'image',
  );
  assert.equal([f.takenAt, f.location, f.rating, f.exposure.iso], [null, null, null, null]);
  assert.is(captureFacts(tags({ GPSLatitude: 0, GPSLongitude: 0 }), 'image').location, null, '0/0 is no position');
  const ok = captureFacts(tags({ GPSLatitude: -33.86, GPSLongitude: 151.21, GPSAltitude: 99999999 }), 'image');
  assert.equal(ok.location, { latitude: -33.86, longitude: 151.21, altitude: null, direction: null });
});

test("camera defaults are no description; keywords from arrays, IPTC and Windows' XPKeywords", () => {
  for (const junk of ['OLYMPUS DIGITAL CAMERA', 'SONY DSC', '   ', 'Canon EOS R6']) {
    const f = captureFacts(tags({ ImageDescription: junk, Make: 'Canon', Model: 'Canon EOS R6' }), 'image');
    assert.is(f.description, null, junk);
  }
  assert.is(captureFacts(tags({ Description: 'Harbour at dawn' }), 'image').description, 'Harbour at dawn');
  assert.equal(captureFacts(tags({ Keywords: ['a', 'b', 'a'] }), 'image').keywords, ['a', 'b']);
  assert.equal(captureFacts(tags({ Keywords: 'sea, sky' }), 'image').keywords, ['sea', 'sky']);
  assert.equal(captureFacts(tags({ XPKeywords: 'x;y' }), 'image').keywords, ['x', 'y']);
});

test('withCaptureFacts fills what the EXIF block lacked and changes nothing it had', () => {
  const facts = captureFacts(tags({ Make: 'Apple', Model: 'iPhone', GPSLatitude: 1, GPSLongitude: 2 }), 'image');
  const out = withCaptureFacts({ tags: {}, make: 'NIKON' }, facts);
  assert.is(out.make, 'NIKON');
  assert.is(out.model, 'iPhone');
  assert.equal([out.latitude, out.longitude], [1, 2]);
  assert.is((out.capture as { takenAt?: unknown }).takenAt, undefined, 'the instant lives in its column');
  assert.equal(captureFacts(null, 'image').camera, null);
});

test.run();
