/**
 * The capture time (takenAt): from EXIF of real and generated photos, from the
 * container tags of real and generated videos, and the rules on zones and on
 * implausible values (src/files/captureTime.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveFfprobe } from '../../src/files/binaries.js';
import { takenAtFromExif, takenAtFromTags } from '../../src/files/captureTime.js';
import { probeImage } from '../../src/files/imageProbe.js';
import { probeVideo } from '../../src/files/videoProbe.js';
import { sharedPath } from '../helpers/skip.js';
import { testClip } from '../helpers/testClip.js';

const opts = { maxPixels: 1e8, frameMaxSide: 64 };
let dir = '';
test.before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'taken-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A small JPEG carrying the given tags of the Exif IFD. */
async function jpegWithExif(name: string, photo: Record<string, string>): Promise<string> {
  const buf = await sharp({ create: { width: 16, height: 12, channels: 3, background: '#369' } })
    .jpeg()
    .withExif({ IFD0: { Make: 'TestCam' }, IFD2: photo })
    .toBuffer();
  const p = path.join(dir, name);
  await writeFile(p, buf);
  return p;
}

const ffmpeg = (out: string, ...args: string[]) => testClip(path.join(dir, out), ...args);

test('real photos: DateTimeOriginal as the wall clock in UTC, sub-seconds kept; none without EXIF', async () => {
  const cases: Array<[string, string | null]> = [
    ['fixtures/images/exif_gps_DSCN0010.jpg', '2008-10-22T16:28:39.000Z'],
    ['fixtures/images/exif_canon_hdr_NO.jpg', '2015-02-09T22:47:44.000Z'],
    ['fixtures/images/exif_iphone_hdr_YES.jpg', '2015-04-10T20:12:23.550Z'],
    ['fixtures/images/exif_orientation_portrait_3.jpg', null],
    ['fixtures/images/coco_000000000139.jpg', null],
  ];
  for (const [fixture, expected] of cases) {
    const p = sharedPath(fixture, 'EXIF photo fixture');
    if (!p) continue;
    assert.is((await probeImage(p, opts)).takenAt, expected, fixture);
  }
});

test('generated photos: the offset applies, a zeroed original falls back to the digitized time', async () => {
  const probe = async (name: string, photo: Record<string, string>) =>
    (await probeImage(await jpegWithExif(name, photo), opts)).takenAt;
  assert.is(
    await probe('offset.jpg', {
      DateTimeOriginal: '2021:06:15 14:30:05',
      OffsetTimeOriginal: '+02:00',
      SubSecTimeOriginal: '25',
    }),
    '2021-06-15T12:30:05.250Z',
  );
  assert.is(
    await probe('west.jpg', { DateTimeOriginal: '2021:06:15 20:00:00', OffsetTime: '-05:30' }),
    '2021-06-16T01:30:00.000Z',
    'OffsetTime when OffsetTimeOriginal is missing',
  );
  assert.is(await probe('plain.jpg', { DateTimeOriginal: '2021:06:15 14:30:05' }), '2021-06-15T14:30:05.000Z');
  assert.is(
    await probe('zeroed.jpg', { DateTimeOriginal: '0000:00:00 00:00:00', DateTimeDigitized: '2019:01:02 03:04:05' }),
    '2019-01-02T03:04:05.000Z',
  );
  assert.is(await probe('blank.jpg', { DateTimeOriginal: '    :  :     :  :  ' }), null);
  assert.is(await probe('future.jpg', { DateTimeOriginal: '2999:01:01 00:00:00' }), null);
});

test('takenAtFromExif: rules on the JSON form', () => {
  const at = (photo: Record<string, unknown>) => takenAtFromExif({ tags: {}, Photo: photo });
  assert.is(takenAtFromExif({ tags: {} }), null);
  assert.is(takenAtFromExif({ tags: {}, Photo: 'junk' }), null);
  assert.is(at({ DateTimeOriginal: '1899-11-30T00:00:00.000Z' }), null, 'exif-reader’s reading of 0000:00:00');
  assert.is(at({ DateTimeOriginal: '1900-01-01T00:00:00.000Z' }), null, 'and of year 0000');
  assert.is(at({ DateTimeOriginal: '1950-07-01T00:00:00.000Z' }), '1950-07-01T00:00:00.000Z', 'a scanned old photo');
  assert.is(
    at({ DateTimeOriginal: '2020-01-01T00:00:00.000Z', OffsetTimeOriginal: '+99:00' }),
    '2020-01-01T00:00:00.000Z',
  );
  assert.is(at({ DateTimeOriginal: '2020-01-01T00:00:00.000Z', SubSecTimeOriginal: '5' }), '2020-01-01T00:00:00.500Z');
  assert.is(
    at({ DateTimeDigitized: '2020-01-01T00:00:00.000Z', OffsetTimeDigitized: '+01:00' }),
    '2019-12-31T23:00:00.000Z',
  );
});

test('real videos: the MP4 creation_time; an MKV without one has none', async () => {
  const mp4 = sharedPath('fixtures/videos/car-detection.mp4', 'MP4 video fixture');
  if (mp4) assert.is((await probeVideo(mp4, resolveFfprobe())).takenAt, '2018-04-19T22:46:00.000Z');
  const mkv = sharedPath('fixtures/videos/asl_eat.mkv', 'MKV video fixture');
  if (mkv) assert.is((await probeVideo(mkv, resolveFfprobe())).takenAt, null);
});

test('generated videos: creation_time in MP4 and MKV; none when not written', async () => {
  const ffprobe = resolveFfprobe();
  // MP4 keeps whole seconds.
  const mp4 = await ffmpeg('t.mp4', '-c:v', 'mpeg4', '-metadata', 'creation_time=2020-02-29T08:15:30.000000Z');
  assert.is((await probeVideo(mp4, ffprobe)).takenAt, '2020-02-29T08:15:30.000Z');
  const mkv = await ffmpeg('t.mkv', '-c:v', 'mpeg4', '-metadata', 'creation_time=2016-10-01T00:00:00Z');
  assert.is((await probeVideo(mkv, ffprobe)).takenAt, '2016-10-01T00:00:00.000Z');
  const bare = await ffmpeg('bare.mp4', '-c:v', 'mpeg4');
  assert.is((await probeVideo(bare, ffprobe)).takenAt, null);
});

test('takenAtFromTags: QuickTime creationdate first (with its offset), sentinels are none', () => {
  assert.is(
    takenAtFromTags(
      { 'com.apple.quicktime.creationdate': '2019-06-15T14:33:04+0200', creation_time: '2019-06-20T00:00:00.000000Z' },
      [],
    ),
    '2019-06-15T12:33:04.000Z',
  );
  assert.is(takenAtFromTags({ creation_time: '1970-01-01T00:00:00.000000Z' }, []), null);
  assert.is(takenAtFromTags({ creation_time: '1904-01-01T00:00:00.000000Z' }, []), null);
  assert.is(
    takenAtFromTags({ creation_time: '1970-01-01T00:00:00Z' }, [{ creation_time: '2012-03-04 05:06:07' }]),
    '2012-03-04T05:06:07.000Z',
    "a stream's creation time when the format's is unset",
  );
  assert.is(takenAtFromTags({ CREATION_TIME: 'not a date' }, [undefined]), null);
  assert.is(takenAtFromTags(undefined, []), null);
});

test.run();
