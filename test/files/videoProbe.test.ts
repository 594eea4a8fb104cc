import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../src/platform/errors.js';
import { resolveFfmpeg, resolveFfprobe } from '../../src/files/binaries.js';
import { fromFfprobe, probeVideo } from '../../src/files/videoProbe.js';
import { sharedPath } from '../helpers/skip.js';
import { TEST_PATTERN, ffmpegTo } from '../helpers/testClip.js';

const ffprobe = resolveFfprobe();
let dir = '';
test.before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'vidprobe-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ffmpeg = (out: string, ...args: string[]) => ffmpegTo(path.join(dir, out), ...args);
const testsrc = TEST_PATTERN;

async function rejectsWith(p: Promise<unknown>, code: string, re?: RegExp): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, DomainError);
    assert.is((e as DomainError).code, code, (e as Error).message);
    if (re) assert.match((e as DomainError).message, re);
    return e as DomainError;
  }
  assert.unreachable('expected a rejection');
  throw new Error('unreachable');
}

test('binaries resolve to the bundled executables and are cached', () => {
  assert.match(resolveFfmpeg(), /ffmpeg$/);
  assert.match(ffprobe, /ffprobe$/);
  assert.is(resolveFfprobe(), ffprobe);
  assert.is(resolveFfprobe('/opt/custom/ffprobe'), '/opt/custom/ffprobe');
});

test('car-detection.mp4: 768x432, about 30 s, h264', async () => {
  const p = sharedPath('fixtures/videos/car-detection.mp4', 'MP4 video fixture');
  if (!p) return;
  const v = await probeVideo(p, ffprobe);
  assert.is(v.width, 768);
  assert.is(v.height, 432);
  assert.ok(v.duration !== null && Math.abs(v.duration - 30) < 1, `duration ${v.duration}`);
  assert.is(v.codec, 'h264');
  assert.match(v.container, /mp4/);
  assert.is(v.rotation, 0);
  assert.is(v.hasAudio, true);
  assert.ok(v.fps && v.fps > 10);
});

test('asl_eat.mkv: 640x480, about 1.6 s, matroska', async () => {
  const p = sharedPath('fixtures/videos/asl_eat.mkv', 'MKV video fixture');
  if (!p) return;
  const v = await probeVideo(p, ffprobe);
  assert.equal([v.width, v.height], [640, 480]);
  assert.ok(v.duration !== null && v.duration > 1 && v.duration < 2.5, `duration ${v.duration}`);
  assert.match(v.container, /matroska/);
  assert.is(v.codec, 'h264');
});

test('generated WebM probes; a rotate=90 MP4 reports display dims swapped', async () => {
  const webm = await probeVideo(await ffmpeg('a.webm', ...testsrc, '-c:v', 'libvpx', '-deadline', 'realtime'), ffprobe);
  assert.equal([webm.width, webm.height, webm.codec], [64, 48, 'vp8']);
  assert.ok(webm.duration !== null && Math.abs(webm.duration - 1) < 0.2);
  // The bundled (2018) ffmpeg only writes the rotation matrix when remuxing, and
  // writes it as 270 clockwise for rotate=90; either way the sides swap.
  const plain = await ffmpeg('plain.mp4', ...testsrc, '-c:v', 'mpeg4');
  const rotated = await ffmpeg('rot.mp4', '-i', plain, '-c', 'copy', '-metadata:s:v:0', 'rotate=90');
  const v = await probeVideo(rotated, ffprobe);
  assert.ok(v.rotation === 90 || v.rotation === 270, `rotation ${v.rotation}`);
  assert.equal([v.width, v.height], [48, 64]);
  assert.is(v.hasAudio, false);
});

test('truncated, corrupt, audio-only and missing files are unprocessable', async () => {
  const full = await ffmpeg('full.mp4', ...testsrc, '-c:v', 'mpeg4');
  const bytes = await readFile(full);
  const cut = path.join(dir, 'cut.mp4');
  await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length / 2))); // the moov atom is at the end
  const e = await rejectsWith(
    probeVideo(cut, ffprobe),
    'unprocessable',
    /^the file is not a playable video: moov atom not found$/,
  );
  assert.not.match(e.message, dir, 'no server paths in the message');

  const junk = path.join(dir, 'junk.mp4');
  await writeFile(junk, Buffer.concat([bytes.subarray(0, 32), Buffer.alloc(4096, 0x5a)]));
  await rejectsWith(probeVideo(junk, ffprobe), 'unprocessable');

  const audio = await ffmpeg('audio.mp4', '-f', 'lavfi', '-i', 'sine=duration=0.5', '-c:a', 'aac');
  await rejectsWith(probeVideo(audio, ffprobe), 'unprocessable', /no video stream/);

  await rejectsWith(probeVideo(path.join(dir, 'absent.mp4'), ffprobe), 'unprocessable');

  const jpeg = await ffmpeg('still.jpg', '-f', 'lavfi', '-i', 'testsrc=size=64x48', '-frames:v', '1');
  await rejectsWith(probeVideo(jpeg, ffprobe), 'unprocessable', /still image/);
});

test('a file name cannot smuggle an ffprobe protocol', async () => {
  const full = await ffmpeg('ok.mp4', ...testsrc, '-c:v', 'mpeg4');
  const odd = path.join(dir, 'concat:x|y.mp4');
  await copyFile(full, odd);
  const v = await probeVideo(odd, ffprobe);
  assert.is(v.width, 64);
});

test('ffprobe that cannot be run → unavailable', async () => {
  await rejectsWith(probeVideo(path.join(dir, 'x.mp4'), '/nonexistent/ffprobe'), 'unavailable');
});

test('fromFfprobe: display-matrix rotation, cover art, missing duration', () => {
  const v = fromFfprobe({
    streams: [
      { codec_type: 'video', codec_name: 'mjpeg', width: 300, height: 300, disposition: { attached_pic: 1 } },
      {
        codec_type: 'video',
        codec_name: 'hevc',
        width: 1920,
        height: 1080,
        side_data_list: [{ side_data_type: 'Display Matrix', rotation: -90 }],
      },
    ],
    format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2' },
  });
  assert.equal([v.width, v.height, v.rotation, v.codec, v.duration], [1080, 1920, 90, 'hevc', null]);
  assert.is(
    fromFfprobe({
      streams: [{ codec_type: 'video', codec_name: 'h264', width: 4, height: 4, tags: { rotate: '-90' } }],
    }).rotation,
    270,
  );
  assert.throws(() => fromFfprobe({ streams: [{ codec_type: 'audio', codec_name: 'aac' }] }), /no video stream/);
});

test.run();
