/**
 * Formats section of `npm run bench` (issue 26): what the new decoders cost beside a JPEG of the same pixels,
 * how fast the web copy of a video is made, and what a transcode does to browsing.
 *
 *  - HEIC: probeImage (libheif in WebAssembly in a worker thread, then the frame with sharp) of the 12-megapixel
 *    iPhone 13 Pro HEIC beside probeImage of a JPEG (quality 90) of the same decoded pixels.
 *  - RAW: probeImage of the Canon R6 CR3 (ExifTool extracts its 1620x1080 preview, sharp makes the frame)
 *    beside probeImage of that preview as a JPEG file.
 *  - Transcode: the web copy's ffmpeg arguments (webVideoArgs) on the 30 s 768x432 H.264 fixture (a stand-in
 *    input: the HEVC fixture lasts 0.7 s), as video seconds per hour of wall time.
 *  - Browse under a transcode: GET /api/dataset/{id}/media?limit=50 over HTTP on a 200-item collection, idle and
 *    while that transcode runs at the job's low priority (target: p99 at most twice idle).
 *
 * Full: 5 decodes each, 200 browse requests. --quick: 2 decodes, 40 requests.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { resolveFfmpeg } from '../../src/files/binaries.js';
import { endExifTool, readTags } from '../../src/files/exifTool.js';
import { decodeHeic } from '../../src/files/heic/heicDecode.js';
import { probeImage } from '../../src/files/imageProbe.js';
import { spawnFfmpeg } from '../../src/features/ingest/ffmpegRun.js';
import { WEB_VIDEO_NICENESS, webVideoArgs } from '../../src/features/ingest/webVideo.js';
import { fmtMs, measure, now, stats, type BenchOptions, type BenchRow, type SectionResult } from './harness.js';
import { startApp } from './ingest.js';

const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'fixtures');
const HEIC = path.join(SHARED, 'formats/heic_iphone13pro_portrait_depth_gainmap_gps.heic');
const CR3 = path.join(SHARED, 'formats/cr3_canon_r6_truncated_with_preview.cr3');
const VIDEO = path.join(SHARED, 'videos/car-detection.mp4');
const VIDEO_SECONDS = 30;
const PROBE = { maxPixels: 120_000_000, frameMaxSide: 2048 };

export async function runFormatsBench(opts: BenchOptions): Promise<SectionResult> {
  const t0 = now();
  const reps = opts.quick ? 2 : 5;
  const missing = [HEIC, CR3, VIDEO].filter((p) => !existsSync(p));
  const result = (setup: Record<string, unknown>, rows: BenchRow[], findings: string[]): SectionResult => ({
    section: 'formats',
    quick: opts.quick,
    setup,
    rows,
    findings,
    durationMs: now() - t0,
  });
  if (missing.length) {
    opts.log(`SKIP formats: ${missing.join(', ')} absent`);
    return result({ skipped: missing }, [], [`skipped: ${missing.join(', ')} absent`]);
  }
  const temp = mkdtempSync(path.join(os.tmpdir(), 'lumen-bench-formats-'));
  try {
    const rows = [await heicRow(temp, reps, opts), await rawRow(temp, reps, opts)];
    const transcode = await transcodeRow(temp, opts);
    rows.push(transcode.row);
    rows.push(await browseRow(temp, opts));
    return result({ reps, heic: path.basename(HEIC), raw: path.basename(CR3), video: path.basename(VIDEO) }, rows, [
      `web copy: ${Math.round(transcode.videoSecondsPerHour)} video seconds per hour of wall time on this machine`,
    ]);
  } finally {
    await endExifTool();
    if (!opts.keep) rmSync(temp, { recursive: true, force: true });
    else opts.log(`kept ${temp}`);
  }
}

async function heicRow(temp: string, reps: number, opts: BenchOptions): Promise<BenchRow> {
  opts.log('HEIC 12 MP: decode + frame, beside a JPEG of the same pixels');
  const px = await decodeHeic(HEIC);
  const jpeg = path.join(temp, 'same-pixels.jpg');
  const raw = { width: px.width, height: px.height, channels: px.channels };
  writeFileSync(jpeg, await sharp(px.data, { raw }).removeAlpha().jpeg({ quality: 90 }).toBuffer());
  const ours = await measure(() => probeImage(HEIC, { ...PROBE, decoder: 'heif' }), { reps, warmup: 1 });
  const base = await measure(() => probeImage(jpeg, PROBE), { reps, warmup: 1 });
  return {
    id: 'heic-12mp',
    label: `HEIC ${px.width}x${px.height}: probe + frame (libheif WebAssembly, worker thread)`,
    ours,
    baseline: { label: 'JPEG of the same pixels (sharp)', stats: base },
    note: `ratio ${(ours.p50 / base.p50).toFixed(1)}x at p50`,
  };
}

async function rawRow(temp: string, reps: number, opts: BenchOptions): Promise<BenchRow> {
  opts.log('RAW (CR3): preview extraction + frame, beside the preview as a JPEG file');
  const tags = await readTags(CR3);
  const preview = path.join(temp, 'preview.jpg');
  const first = await probeImage(CR3, { ...PROBE, decoder: 'raw', tags });
  const jpegBytes = await sharp(first.frame.buffer).jpeg({ quality: 90 }).toBuffer();
  writeFileSync(preview, jpegBytes);
  const ours = await measure(() => probeImage(CR3, { ...PROBE, decoder: 'raw', tags }), { reps, warmup: 1 });
  const base = await measure(() => probeImage(preview, PROBE), { reps, warmup: 1 });
  return {
    id: 'raw-cr3',
    label: `CR3 shown from its ${first.frame.width}x${first.frame.height} preview: probe + frame (ExifTool)`,
    ours,
    baseline: { label: 'the same pixels as a JPEG file (sharp)', stats: base },
    note: `ratio ${(ours.p50 / base.p50).toFixed(1)}x at p50`,
  };
}

/** ffmpeg as the web-video job runs it: the same arguments, the same low priority. */
async function runFfmpeg(args: string[]): Promise<void> {
  const run = await spawnFfmpeg(resolveFfmpeg(), args, 600_000, undefined, WEB_VIDEO_NICENESS);
  if (run.code !== 0) throw new Error(`ffmpeg failed: ${run.lines.slice(-3).join(' | ')}`);
}

async function transcodeRow(temp: string, opts: BenchOptions) {
  opts.log(`web copy of a ${VIDEO_SECONDS} s 768x432 video`);
  const t = now();
  await runFfmpeg(webVideoArgs(VIDEO, path.join(temp, 'web.mp4')));
  const ms = now() - t;
  const videoSecondsPerHour = (VIDEO_SECONDS / (ms / 1000)) * 3600;
  const row: BenchRow = {
    id: 'web-copy',
    label: `web copy (H.264 CRF 23, faststart) of ${VIDEO_SECONDS} s 768x432`,
    ours: stats([ms]),
    baseline: null,
    rate: { unit: 'video s/h', ours: Math.round(videoSecondsPerHour), baseline: null },
  };
  return { row, videoSecondsPerHour };
}

async function browseRow(temp: string, opts: BenchOptions): Promise<BenchRow> {
  const app = await startApp(path.join(temp, 'data'), path.join(temp, 'models'), { INGEST_CONCURRENCY: '0' });
  try {
    const ds = (await app.api('POST', `/api/organization/${await orgId(app)}/datasets`, { name: 'Bench' })).dataset.id;
    const photo = path.join(temp, 'p.jpg');
    const items = opts.quick ? 40 : 200;
    for (let i = 0; i < items; i++) {
      const color = { r: (i * 37) % 256, g: (i * 91) % 256, b: (i * 53) % 256 };
      writeFileSync(
        photo,
        await sharp({ create: { width: 64, height: 48, channels: 3, background: color } })
          .jpeg()
          .toBuffer(),
      );
      await app.upload(ds, photo);
    }
    const reps = opts.quick ? 40 : 200;
    const browse = () => app.api('GET', `/api/dataset/${ds}/media?limit=50`);
    const idle = await measure(browse, { reps, warmup: 10 });
    opts.log('browse while the web copy is made');
    const transcode = runFfmpeg(webVideoArgs(VIDEO, path.join(temp, 'busy.mp4')));
    const busy = await measure(browse, { reps, warmup: 0 });
    await transcode;
    const pass = busy.p99 <= 2 * idle.p99;
    return {
      id: 'browse-under-transcode',
      label: `browse 50 of ${items} items while a web copy is made`,
      ours: busy,
      baseline: { label: 'idle', stats: idle },
      target: { text: `p99 <= 2x idle (${fmtMs(2 * idle.p99)})`, pass },
    };
  } finally {
    await app.close();
  }
}

async function orgId(app: Awaited<ReturnType<typeof startApp>>): Promise<string> {
  return (await app.api('GET', '/api/me')).organizationId;
}
