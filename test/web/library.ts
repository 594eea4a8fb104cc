/**
 * A small library for the search and viewer browser tests, uploaded through the real route and analysed by
 * the stand-in models (MODEL_PROFILE=test: a picture is captioned and labelled by its dominant colour, and
 * the stand-in OCR reads the WHO poster's lines): two reds, a blue one whose file name is an XSS attempt,
 * the poster, and a short synthetic video (blue for 2 s, then green).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { resolveFfmpeg } from '../../src/files/binaries.js';
import { makeImage, waitForProcessing, type TestApp } from '../helpers/testApp.js';

export const XSS_NAME = '<img src=x onerror=alert(1)>.jpg';
const POSTER = path.resolve(import.meta.dirname, '../../../shared/fixtures/images/easyocr_english.png');

export interface Library {
  datasetId: string;
  red: string;
  red2: string;
  blue: string;
  /** The WHO poster, with OCR text regions; null when the shared fixtures are absent. */
  poster: string | null;
  video: string;
}

/** A 4 s H.264 MP4: blue, then green from 2 s (a scene cut the sampler keeps). */
async function makeVideo(): Promise<Buffer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mlib-webvid-'));
  const file = path.join(dir, 'clip.mp4');
  const lavfi = (c: string) => ['-f', 'lavfi', '-i', `color=c=${c}:s=160x120:r=10:d=2`];
  await promisify(execFile)(resolveFfmpeg(), [
    ...['-v', 'error', '-y', ...lavfi('blue'), ...lavfi('green')],
    ...['-filter_complex', '[0:v][1:v]concat=n=2:v=1:a=0[v]', '-map', '[v]'],
    ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', file],
  ]);
  const bytes = readFileSync(file);
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

async function upload(t: TestApp, datasetId: string, name: string, bytes: Buffer, type: string): Promise<string> {
  const r = await t.upload({ datasetId, name }, { bytes, filename: name, type });
  if (r.status !== 200) throw new Error(`upload ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  // Distinct creation times, so "newest first" has one answer.
  await new Promise((res) => setTimeout(res, 20));
  return r.body.mediaId;
}

/** Uploads the library and waits until every item is analysed. */
export async function seedLibrary(t: TestApp): Promise<Library> {
  const datasetId = await t.collection('Pictures');
  const jpeg = (r: number, g: number, b: number) =>
    makeImage({ width: 320, height: 240, color: { r, g, b }, format: 'jpeg' });
  const red = await upload(t, datasetId, 'red.jpg', await jpeg(220, 20, 20), 'image/jpeg');
  const blue = await upload(t, datasetId, XSS_NAME, await jpeg(20, 30, 220), 'image/jpeg');
  let poster: string | null = null;
  try {
    poster = await upload(t, datasetId, 'poster.png', readFileSync(POSTER), 'image/png');
  } catch (err) {
    console.log(`  (no OCR poster: ${(err as Error).message.split('\n')[0]})`);
  }
  const video = await upload(t, datasetId, 'clip.mp4', await makeVideo(), 'video/mp4');
  const red2 = await upload(t, datasetId, 'red-too.jpg', await jpeg(200, 30, 25), 'image/jpeg');
  for (const id of [red, blue, poster, video, red2]) {
    if (!id) continue;
    const m = await waitForProcessing(t, id, 60_000);
    if (m.processingStatus !== 'ready') throw new Error(`${id} ${m.processingStatus}: ${m.processingError}`);
  }
  return { datasetId, red, red2, blue, poster, video };
}
