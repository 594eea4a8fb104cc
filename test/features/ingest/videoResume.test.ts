/**
 * A long video's frame extraction resumes where it stopped (issue #29; src/features/ingest/videoSegments.ts):
 * window by window, each window's frames stored and the list saved as the job's progress. With the real ffmpeg
 * on ../shared's 30 s and 40 s clips, a frame at least every 2 s, windows of 3 frames:
 * - the windows give exactly the frames one whole pass gives (same timestamps, none twice);
 * - stopped after two windows and run again with the saved progress, no frame is extracted or stored twice
 *   (the store is counted) and the result is the whole pass's;
 * - a file whose seeking misses (the 30 s clip as MPEG-TS) gets the rest from one whole pass: the same frames;
 * - progress of another file or other settings, or naming a frame no longer stored, is ignored.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveFfmpeg } from '../../../src/files/binaries.js';
import { sampleVideoFrames } from '../../../src/features/ingest/videoFrames.js';
import {
  sampleInWindows,
  type ExtractionCheckpoint,
  type WindowedSampling,
} from '../../../src/features/ingest/videoSegments.js';
import { sharedPath } from '../../helpers/skip.js';

const CLIPS: Array<[string, number]> = [
  ['car-detection.mp4', 30.16],
  ['bottle-detection.mp4', 39.854749],
];

const t = suite<{ dir: string }>('video extraction resumes');
t.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(os.tmpdir(), 'video-resume-'));
  const mp4 = sharedPath('fixtures/videos/car-detection.mp4', 'the video resume test');
  const ts = [
    '-v',
    'error',
    '-i',
    `file:${mp4}`,
    '-c',
    'copy',
    '-f',
    'mpegts',
    `file:${clip(ctx.dir, 'car-detection.ts')}`,
  ];
  if (mp4) execFileSync(resolveFfmpeg(), ts);
});

/** A clip's path: ../shared's, or the one made in the test's folder. */
function clip(dir: string, name: string): string | null {
  return name.endsWith('.ts') ? path.join(dir, name) : sharedPath(`fixtures/videos/${name}`, 'the video resume test');
}
t.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

/** A store in memory that counts what it is asked to keep. */
function memoryStore() {
  const blobs = new Map<string, number>();
  let n = 0;
  return {
    blobs,
    get stored() {
      return n;
    },
    store: async (f: { timestamp: number }) => {
      const key = `frame-${++n}`;
      blobs.set(key, f.timestamp);
      return key;
    },
    exists: async (key: string) => blobs.has(key),
  };
}

function options(dir: string, duration: number, extra: Partial<WindowedSampling>): WindowedSampling {
  return {
    ffmpegPath: resolveFfmpeg(),
    duration,
    workDir: dir,
    maxInterval: 2,
    longVideoSeconds: 0,
    windowFrames: 3,
    id: 'clip',
    store: async () => 'unused',
    exists: async () => true,
    save: async () => {},
    ...extra,
  };
}

for (const [name, duration] of CLIPS) {
  t(
    `${name}: windows give the whole pass's frames; a stop after two windows resumes without a frame twice`,
    async (ctx) => {
      const file = clip(ctx.dir, name);
      if (!file || !existsSync(file)) return;
      const whole = (
        await sampleVideoFrames(file, { ffmpegPath: resolveFfmpeg(), duration, workDir: ctx.dir, maxInterval: 2 })
      ).map((f) => f.timestamp);
      assert.ok(whole.length >= 10, `${whole.length} frames`);

      const mem = memoryStore();
      const saves: ExtractionCheckpoint[] = [];
      const windowed = await sampleInWindows(
        file,
        options(ctx.dir, duration, { ...mem, save: async (c) => void saves.push(structuredClone(c)) }),
      );
      assert.equal(
        windowed.map((f) => f.timestamp),
        whole,
      );
      assert.ok(saves.length >= 5, `${saves.length} windows`);
      assert.is(mem.stored, whole.length, 'each frame stored once');

      // Stopped after the second window (the job's signal aborts as a shutdown would).
      const first = memoryStore();
      const controller = new AbortController();
      let checkpoint: ExtractionCheckpoint | null = null;
      let windows = 0;
      const stopped = await sampleInWindows(
        file,
        options(ctx.dir, duration, {
          ...first,
          signal: controller.signal,
          save: async (c) => {
            checkpoint = structuredClone(c);
            if (++windows === 2) controller.abort(new Error('shutting down'));
          },
        }),
      ).then(
        () => null,
        (err: Error) => err,
      );
      assert.is(stopped?.message, 'shutting down');
      const storedBefore = first.stored;
      assert.ok(storedBefore > 0 && storedBefore < whole.length, `${storedBefore} frames before the stop`);

      // The next attempt: the same store (the files are there), the saved progress.
      const resumed = await sampleInWindows(file, options(ctx.dir, duration, { ...first, checkpoint }));
      assert.equal(
        resumed.map((f) => f.timestamp),
        whole,
      );
      assert.is(first.stored, whole.length, 'no frame extracted and stored again');
      assert.is(new Set(resumed.map((f) => f.key)).size, whole.length);
    },
  );
}

t('MPEG-TS (timestamps from 1.4 s, no index): a window that misses its frame, the rest in one pass', async (ctx) => {
  const file = clip(ctx.dir, 'car-detection.ts');
  if (!file || !existsSync(file)) return;
  const duration = 30.16;
  const whole = (
    await sampleVideoFrames(file, { ffmpegPath: resolveFfmpeg(), duration, workDir: ctx.dir, maxInterval: 2 })
  ).map((f) => f.timestamp);
  const mem = memoryStore();
  const windowed = await sampleInWindows(file, options(ctx.dir, duration, { ...mem }));
  assert.equal(
    windowed.map((f) => f.timestamp),
    whole,
  );
  assert.is(mem.stored, whole.length, 'each frame stored once');
});

t('progress of another file, other settings or naming a missing frame is ignored', async (ctx) => {
  const [name, duration] = CLIPS[0];
  const file = sharedPath(`fixtures/videos/${name}`, 'the video resume test');
  if (!file) return;
  const mem = memoryStore();
  let saved: ExtractionCheckpoint | null = null;
  const save = async (c: ExtractionCheckpoint) => void (saved ??= structuredClone(c));
  const all = await sampleInWindows(file, options(ctx.dir, duration, { ...mem, save }));
  const firstWindow = saved! as ExtractionCheckpoint;
  const count = all.length;
  const run = async (extra: Partial<WindowedSampling>) => {
    const before = mem.stored;
    await sampleInWindows(file, options(ctx.dir, duration, { ...mem, ...extra }));
    return mem.stored - before;
  };
  assert.is(await run({ checkpoint: firstWindow }), count - firstWindow.frames.length, 'its own: resumed');
  assert.is(await run({ checkpoint: firstWindow, id: 'another file' }), count);
  assert.is((await run({ checkpoint: firstWindow, maxInterval: 3 })) > 0, true);
  mem.blobs.delete(firstWindow.frames[0].key);
  assert.is(await run({ checkpoint: firstWindow }), count, 'a frame gone: from the start');
  assert.is(await run({ checkpoint: { nonsense: true } }), count);
});

t.run();
