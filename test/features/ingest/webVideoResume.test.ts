/**
 * The web-video transcode stopped half-way (issue #29: `docker stop` during a long job) leaves no scratch file
 * and records nothing; the next attempt makes the copy from the start. makeWebVideo with stand-in deps around
 * the real ffmpeg and ../shared's 30 s clip (named as Matroska so that it needs a copy).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeWebVideo } from '../../../src/features/ingest/webVideo.js';
import { sharedPath } from '../../helpers/skip.js';

const t = suite('web video copy after a stop');

t('aborted mid-transcode: no scratch left, nothing recorded; run again: one copy', async () => {
  const file = sharedPath('fixtures/videos/car-detection.mp4', 'the web video stop test');
  if (!file) return;
  const tmpDir = mkdtempSync(path.join(os.tmpdir(), 'webvideo-stop-'));
  const puts: number[] = [];
  const merged: unknown[] = [];
  const media = {
    id: 'a'.repeat(32),
    type: 'video',
    status: 'active',
    blobKey: 'original',
    mimeType: 'video/x-matroska',
    exif: { codec: 'h264' },
    duration: 30.16,
    width: null,
    height: null,
  };
  const deps = {
    config: { ffmpegPath: undefined },
    storage: { media: { get: async () => media, mergeExif: async (_id: string, e: unknown) => merged.push(e) > 0 } },
    blobs: {
      tmpDir,
      exists: async () => false,
      materialize: async () => ({ path: file, release: async () => {} }),
      putFile: async (p: string) => {
        puts.push(readdirSync(path.dirname(p)).length);
        return { key: 'copy', sizeBytes: 1 };
      },
    },
  } as unknown as Parameters<typeof makeWebVideo>[0];
  try {
    const controller = new AbortController();
    const stop = setTimeout(() => controller.abort(new Error('shutting down')), 400);
    const err = await makeWebVideo(deps, media.id, controller.signal).then(
      () => null,
      (e: Error) => e,
    );
    clearTimeout(stop);
    assert.is(err?.message, 'shutting down', 'the transcode was still running at 400 ms');
    assert.equal(readdirSync(tmpDir), [], 'no scratch file left');
    assert.is(puts.length + merged.length, 0, 'nothing stored or recorded');
    const web = await makeWebVideo(deps, media.id, new AbortController().signal);
    assert.is(web?.key, 'copy');
    assert.is(puts.length, 1);
    assert.equal(readdirSync(tmpDir), [], 'its scratch removed too');
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
  }
});

t.run();
