import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../src/platform/errors.js';
import { resolveFfmpeg } from '../../../src/files/binaries.js';
import { jpegSize, parseShowinfo } from '../../../src/features/ingest/ffmpegRun.js';
import {
  posterFrame,
  sampleVideoFrames,
  samplingPlan,
  selectExpression,
  type SampledFrame,
} from '../../../src/features/ingest/videoFrames.js';
import { sharedPath } from '../../helpers/skip.js';

const run = promisify(execFile);
/** The ffmpeg that samples (TEST_FFMPEG tries another build); synthetic videos are always made with the bundled one. */
const ffmpegPath = process.env.TEST_FFMPEG || resolveFfmpeg();
const videos = sharedPath('fixtures/videos', 'video fixture tests');
const FIXTURES: Array<{ name: string; duration: number; min: number; max: number }> = [
  { name: 'asl_eat.mkv', duration: 1.566, min: 1, max: 5 },
  { name: 'car-detection.mp4', duration: 30.16, min: 3, max: 40 },
  { name: 'bottle-detection.mp4', duration: 39.854749, min: 3, max: 45 },
];

let dir = '';
let work = '';
test.before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'vidframes-'));
  work = path.join(dir, 'work');
  await run('mkdir', ['-p', work]);
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function make(out: string, ...args: string[]): Promise<string> {
  const p = path.join(dir, out);
  await run(resolveFfmpeg(), ['-v', 'error', '-y', ...args, p]);
  return p;
}

async function rejectsWith(p: Promise<unknown>, code: string, re?: RegExp): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, DomainError, String(e));
    assert.is((e as DomainError).code, code, (e as Error).message);
    if (re) assert.match((e as DomainError).message, re);
    return e as DomainError;
  }
  assert.unreachable('expected a rejection');
  throw new Error('unreachable');
}

/** Timestamps ascending, distinct, within [0, duration]; each JPEG decodes at its reported size. */
async function checkFrames(frames: SampledFrame[], duration: number, maxSide = 1280): Promise<void> {
  assert.ok(frames.length >= 1);
  let last = -1;
  for (const f of frames) {
    assert.ok(f.timestamp > last, `ascending and distinct: ${f.timestamp} after ${last}`);
    assert.ok(f.timestamp >= 0 && f.timestamp <= duration, `${f.timestamp} within [0, ${duration}]`);
    last = f.timestamp;
    const m = await sharp(f.jpeg).metadata();
    assert.is(m.format, 'jpeg');
    assert.is(m.width, f.width);
    assert.is(m.height, f.height);
    assert.ok(Math.max(f.width, f.height) <= maxSide);
  }
  assert.ok(frames[0].timestamp < 0.1, `the first frame is the poster (t=${frames[0].timestamp})`);
}

async function workIsEmpty(): Promise<void> {
  assert.equal(await readdir(work), [], 'the temporary frame folder is removed');
}

// --- pure parts --------------------------------------------------------------

test('samplingPlan: defaults scale with the duration', () => {
  assert.equal(samplingPlan({ duration: 6 }), { minInterval: 1, maxInterval: 1.2, maxFrames: 300 });
  assert.equal(samplingPlan({ duration: 1.6 }), { minInterval: 1, maxInterval: 1, maxFrames: 300 });
  assert.equal(samplingPlan({ duration: 30 }), { minInterval: 1, maxInterval: 6, maxFrames: 300 });
  assert.equal(samplingPlan({ duration: 600 }), { minInterval: 1.5, maxInterval: 10, maxFrames: 300 });
  // One hour: the cap must span the whole video.
  assert.equal(samplingPlan({ duration: 3600 }), { minInterval: 9, maxInterval: 12, maxFrames: 300 });
  assert.equal(samplingPlan({ duration: null }), { minInterval: 1, maxInterval: 10, maxFrames: 300 });
});

test('samplingPlan: the cap raises the intervals; minInterval never above maxInterval', () => {
  assert.equal(samplingPlan({ duration: 30, maxFrames: 3 }), { minInterval: 7.5, maxInterval: 10, maxFrames: 3 });
  assert.equal(samplingPlan({ duration: 30, minInterval: 2, maxInterval: 0.5 }), {
    minInterval: 0.5,
    maxInterval: 0.5,
    maxFrames: 300,
  });
  assert.equal(samplingPlan({ duration: 30, minInterval: 0.25, maxInterval: 4 }), {
    minInterval: 0.25,
    maxInterval: 4,
    maxFrames: 300,
  });
  for (const bad of [
    { maxFrames: 0 },
    { maxFrames: 2.5 },
    { minInterval: -1 },
    { maxInterval: 0 },
    { maxInterval: Number.NaN },
  ]) {
    assert.throws(
      () => samplingPlan({ duration: 10, ...bad }),
      (e: unknown) => e instanceof DomainError && e.code === 'invalid_input',
    );
  }
});

test('selectExpression: first frame, max gap, or min gap plus a scene change', () => {
  assert.is(
    selectExpression({ minInterval: 1, maxInterval: 6.032, maxFrames: 300 }, 0.3),
    'isnan(prev_selected_t)+gte(t-prev_selected_t,6.032)+gte(t-prev_selected_t,1)*gt(scene,0.3)',
  );
  assert.not.match(selectExpression({ minInterval: 1e-7, maxInterval: 1e-7, maxFrames: 1 }, 0.3), /e-/);
});

test('parseShowinfo: the 2018 and the current line formats', () => {
  const old =
    '[Parsed_showinfo_2 @ 0x20aa1dc0] n:   3 pts: 452000 pts_time:18.08   pos:  1708275 fmt:yuvj444p sar:0/1 s:768x432 i:P iskey:0 type:P checksum:1491E3F9';
  assert.equal(parseShowinfo(old), { pts: 452000, ptsTime: 18.08, width: 768, height: 432 });
  const cur =
    '[Parsed_showinfo_2 @ 0x7f] n:   1 pts:  77824 pts_time:6.08    duration:   1024 duration_time:0.08    fmt:yuv420p cl:left sar:1/1 s:640x360 i:P iskey:0 type:P checksum:AB';
  assert.equal(parseShowinfo(cur), { pts: 77824, ptsTime: 6.08, width: 640, height: 360 });
  assert.is(parseShowinfo('[Parsed_showinfo_2 @ 0x7f] config in time_base: 1/25000, frame_rate: 25/2'), null);
});

test('jpegSize: reads the SOF marker', async () => {
  const jpeg = await sharp({ create: { width: 37, height: 21, channels: 3, background: '#808080' } })
    .jpeg()
    .toBuffer();
  assert.equal(jpegSize(jpeg), { width: 37, height: 21 });
  assert.is(jpegSize(Buffer.from('not a jpeg')), null);
});

// --- real fixtures -------------------------------------------------------------

for (const fx of FIXTURES) {
  test(`fixture ${fx.name}: sane frame count, timestamps, decodable JPEGs`, async () => {
    if (!videos) return;
    const file = path.join(videos, fx.name);
    const t0 = Date.now();
    const frames = await sampleVideoFrames(file, { ffmpegPath, duration: fx.duration, workDir: work });
    const ms = Date.now() - t0;
    console.log(
      `  ${fx.name} (${fx.duration} s): ${frames.length} frames in ${ms} ms at ${frames.map((f) => f.timestamp).join(', ')} s, ` +
        `${frames[0].width}x${frames[0].height}`,
    );
    assert.ok(frames.length >= fx.min && frames.length <= fx.max, `${frames.length} frames in [${fx.min}, ${fx.max}]`);
    await checkFrames(frames, fx.duration);
    await workIsEmpty();
  });
}

test('fixture: maxFrames caps the count and the frames still span the video', async () => {
  if (!videos) return;
  const frames = await sampleVideoFrames(path.join(videos, 'car-detection.mp4'), {
    ffmpegPath,
    duration: 30.16,
    workDir: work,
    maxFrames: 3,
  });
  console.log(`  car-detection.mp4, maxFrames 3: ${frames.map((f) => f.timestamp).join(', ')} s`);
  assert.ok(frames.length >= 1 && frames.length <= 3, `${frames.length} ≤ 3`);
  assert.is(frames.length, 3);
  assert.ok(frames[2].timestamp >= 15, 'the last frame lies in the second half');
  await checkFrames(frames, 30.16);
});

test('fixture: maxSide scales down keeping the aspect; posterFrame is the first frame', async () => {
  if (!videos) return;
  const file = path.join(videos, 'car-detection.mp4'); // 768x432
  const frames = await sampleVideoFrames(file, { ffmpegPath, duration: 30.16, workDir: work, maxSide: 200 });
  await checkFrames(frames, 30.16, 200);
  assert.is(frames[0].width, 200);
  assert.ok(Math.abs(frames[0].height - 112.5) <= 1, `height ${frames[0].height}`);

  const t0 = Date.now();
  const poster = await posterFrame(file, { ffmpegPath, duration: 30.16, workDir: work });
  console.log(
    `  posterFrame(car-detection.mp4): t=${poster.timestamp}, ${poster.width}x${poster.height}, ${Date.now() - t0} ms`,
  );
  assert.is(poster.timestamp, 0);
  assert.is(poster.width, 768);
  assert.is(poster.height, 432);
  const m = await sharp(poster.jpeg).metadata();
  assert.is(m.width, 768);
  await workIsEmpty();
});

// --- synthetic videos --------------------------------------------------------------

test('synthetic: a hard cut between two colours yields a frame at the cut', async () => {
  const file = await make(
    'cut.mp4',
    '-f',
    'lavfi',
    '-i',
    'color=c=blue:s=160x120:r=25:d=3',
    '-f',
    'lavfi',
    '-i',
    'testsrc=s=160x120:r=25:d=3',
    '-f',
    'lavfi',
    '-i',
    'color=c=red:s=160x120:r=25:d=3',
    '-filter_complex',
    '[0:v][1:v][2:v]concat=n=3:v=1:a=0[v]',
    '-map',
    '[v]',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-g',
    '250',
  );
  // maxInterval above the length: only the poster and scene changes.
  const frames = await sampleVideoFrames(file, { ffmpegPath, duration: 9, workDir: work, maxInterval: 20 });
  console.log(`  cut.mp4 (blue | testsrc | red at 3 s and 6 s): ${frames.map((f) => f.timestamp).join(', ')} s`);
  await checkFrames(frames, 9);
  assert.equal(
    frames.map((f) => f.timestamp),
    [0, 3, 6],
  );
  // The frame at the cut is the new scene: red, not blue.
  const { data } = await sharp(frames[2].jpeg).resize(1, 1).raw().toBuffer({ resolveWithObject: true });
  assert.ok(data[0] > 150 && data[2] < 100, `red at the cut: ${[...data]}`);
  // With the defaults, the max interval (9/5 = 1.8 s) also samples within the scenes.
  const dflt = await sampleVideoFrames(file, { ffmpegPath, duration: 9, workDir: work });
  console.log(`  cut.mp4 with defaults: ${dflt.map((f) => f.timestamp).join(', ')} s`);
  await checkFrames(dflt, 9);
  assert.ok(dflt.length >= 4 && dflt.length <= 8, `${dflt.length} frames`);
});

test('synthetic: a rotated phone video gives upright (portrait) frames', async () => {
  // The 2018 ffmpeg writes a rotate tag (display matrix) when remuxing; ffmpeg autorotates on decode.
  const plain = await make(
    'plain.mp4',
    '-f',
    'lavfi',
    '-i',
    'testsrc=s=320x240:r=10:d=2',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
  );
  const file = await make('rot.mp4', '-i', plain, '-c', 'copy', '-metadata:s:v:0', 'rotate=90');
  const frames = await sampleVideoFrames(file, { ffmpegPath, duration: 2, workDir: work });
  await checkFrames(frames, 2);
  assert.is(frames[0].width, 240);
  assert.is(frames[0].height, 320);
});

test('synthetic: an unknown duration still samples', async () => {
  const file = await make(
    'nodur.mkv',
    '-f',
    'lavfi',
    '-i',
    'testsrc=s=64x48:r=10:d=3',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
  );
  const frames = await sampleVideoFrames(file, { ffmpegPath, duration: null, workDir: work, maxInterval: 1 });
  assert.equal(
    frames.map((f) => f.timestamp),
    [0, 1, 2],
  );
});

// --- failures -----------------------------------------------------------------------

test('a truncated video is unprocessable', async () => {
  if (!videos) return;
  const head = (await readFile(path.join(videos, 'car-detection.mp4'))).subarray(0, 4096);
  const file = path.join(dir, 'truncated.mp4');
  await writeFile(file, head);
  const e = await rejectsWith(
    sampleVideoFrames(file, { ffmpegPath, duration: 30.16, workDir: work }),
    'unprocessable',
    /^the video could not be decoded: /,
  );
  console.log(`  truncated.mp4: ${e.message}`);
  assert.not.match(e.message, new RegExp(dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'no server path in the message');
  await rejectsWith(posterFrame(file, { ffmpegPath, duration: 30.16, workDir: work }), 'unprocessable');
  await workIsEmpty();
});

test('a text file is unprocessable, whatever its name', async () => {
  for (const name of ['notes.txt', 'notes.mp4', 'notes']) {
    const file = path.join(dir, name);
    await writeFile(file, 'hello, this is not a video\n'.repeat(20));
    const e = await rejectsWith(
      sampleVideoFrames(file, { ffmpegPath, duration: 5, workDir: work }),
      'unprocessable',
      /could not be decoded/,
    );
    console.log(`  ${name}: ${e.message}`);
  }
  await workIsEmpty();
});

test('a still image is not a video', async () => {
  const file = path.join(dir, 'still.png');
  await sharp({ create: { width: 32, height: 32, channels: 3, background: '#00ff00' } })
    .png()
    .toFile(file);
  await rejectsWith(sampleVideoFrames(file, { ffmpegPath, duration: null, workDir: work }), 'unprocessable');
});

test('ffmpeg missing → unavailable', async () => {
  const file = await make(
    'tiny.mp4',
    '-f',
    'lavfi',
    '-i',
    'testsrc=s=64x48:r=10:d=1',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
  );
  await rejectsWith(
    sampleVideoFrames(file, { ffmpegPath: path.join(dir, 'no-ffmpeg-here'), duration: 1, workDir: work }),
    'unavailable',
  );
  await rejectsWith(
    posterFrame(file, { ffmpegPath: path.join(dir, 'no-ffmpeg-here'), duration: 1, workDir: work }),
    'unavailable',
  );
  await workIsEmpty();
});

test('abort kills ffmpeg and rejects with the reason; a time limit rejects unprocessable', async () => {
  const file = await make(
    'long.mp4',
    '-f',
    'lavfi',
    '-i',
    'testsrc=s=640x480:r=30:d=60',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
  );
  const ac = new AbortController();
  const t0 = Date.now();
  const p = sampleVideoFrames(file, { ffmpegPath, duration: 60, workDir: work, signal: ac.signal });
  setTimeout(() => ac.abort(new Error('stop now')), 100);
  try {
    await p;
    assert.unreachable('expected an abort');
  } catch (e) {
    assert.is((e as Error).message, 'stop now');
  }
  const ms = Date.now() - t0;
  console.log(`  abort after 100 ms: rejected in ${ms} ms`);
  assert.ok(ms < 2000, `prompt (${ms} ms)`);
  await workIsEmpty();

  // Already aborted: nothing runs.
  const pre = AbortSignal.abort();
  try {
    await sampleVideoFrames(file, { ffmpegPath, duration: 60, workDir: work, signal: pre });
    assert.unreachable('expected an abort');
  } catch (e) {
    assert.is((e as Error).name, 'AbortError');
  }

  await rejectsWith(
    sampleVideoFrames(file, { ffmpegPath, duration: 60, workDir: work, timeoutMs: 100 }),
    'unprocessable',
    /took longer/,
  );
  await workIsEmpty();
});

test.run();
