/**
 * The web-playable copy of a video a browser cannot play as it is (HEVC, MJPEG in AVI, H.263 in 3GP,
 * anything in MKV …): H.264 High with AAC audio in MP4 with faststart (the index first, so playback
 * starts before the whole file is there), the long side at most WEB_VIDEO_MAX_SIDE, the bit rate capped,
 * upright (ffmpeg applies the rotation and writes none). Content-addressed like every stored file and
 * recorded as `exif.webVideo` (files/webPlayable.ts says which videos need one); the original stays
 * downloadable as it was. Made by the low-priority `web-video` job after the analysis (webVideoJob.ts);
 * remade by running it again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { resolveFfmpeg } from '../../files/binaries.js';
import { unprocessable } from '../../platform/errors.js';
import { needsWebVideo, webVideoOf, type WebVideo } from '../../files/webPlayable.js';
import type { Services } from '../kernel/services.js';
import { abortReason, failureReason, spawnFfmpeg, throwIfDiskFull } from './ffmpegRun.js';

/** The transcode runs at a low CPU priority: browsing and uploads go first (bench: formats, browse p99). */
export const WEB_VIDEO_NICENESS = 15;
/** Longest side of the copy: 1080p. */
export const WEB_VIDEO_MAX_SIDE = 1920;
/** Peak video bit rate of the copy, and the buffer the rate control averages over. */
const MAX_RATE = '6M';
const BUF_SIZE = '12M';

/** Default time limit: two minutes plus four times the duration (an hour when unknown). */
export function webVideoTimeoutMs(duration: number | null): number {
  if (duration === null || !Number.isFinite(duration) || duration <= 0) return 3_600_000;
  return Math.round(120_000 + 4_000 * duration);
}

/** ffmpeg's arguments for the copy of `input` written to `output`. */
export function webVideoArgs(input: string, output: string): string[] {
  const s = WEB_VIDEO_MAX_SIDE;
  // Long side ≤ s, aspect kept, even sizes (yuv420p needs them); never enlarged.
  const scale = `scale=w='if(gte(iw,ih),min(iw,${s}),-2)':h='if(gte(iw,ih),-2,min(ih,${s}))'`;
  return [
    ['-hide_banner', '-nostdin', '-nostats', '-i', `file:${input}`],
    ['-map', '0:V:0', '-map', '0:a:0?', '-vf', `${scale},format=yuv420p`],
    ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-maxrate', MAX_RATE, '-bufsize', BUF_SIZE],
    ['-profile:v', 'high', '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-sn', '-dn'],
    ['-map_metadata', '-1', '-movflags', '+faststart', '-f', 'mp4', '-y', `file:${output}`],
  ].flat();
}

type WebVideoDeps = Pick<Services, 'config' | 'storage' | 'blobs'>;

/**
 * Makes and records the copy of one item; returns it, or null when the item is gone or needs none (a
 * copy made before is kept). Throws 'unprocessable' with ffmpeg's words when it cannot be made.
 */
export async function makeWebVideo(deps: WebVideoDeps, mediaId: string, signal: AbortSignal): Promise<WebVideo | null> {
  const media = await deps.storage.media.get(mediaId);
  if (!media || media.status !== 'active' || !media.blobKey || !needsWebVideo(media)) return null;
  const existing = webVideoOf(media);
  if (existing && (await deps.blobs.exists(existing.key))) return existing;
  // ffmpeg reads a local file: the original itself, or a temporary copy of it (S3).
  const source = await deps.blobs.materialize(media.blobKey);
  const input = path.resolve(source.path);
  const dir = await mkdtemp(path.join(deps.blobs.tmpDir, 'webvideo-'));
  try {
    const output = path.join(dir, 'web.mp4');
    const timeoutMs = webVideoTimeoutMs(media.duration);
    const run = await spawnFfmpeg(
      resolveFfmpeg(deps.config.ffmpegPath),
      webVideoArgs(input, output),
      timeoutMs,
      signal,
    );
    if (run.outcome === 'aborted') throw abortReason(signal);
    if (run.outcome === 'timeout') throw unprocessable(`the web copy took longer than ${timeoutMs / 1000} s`);
    throwIfDiskFull(run.lines);
    if (run.code !== 0) throw unprocessable(`the web copy could not be made: ${failureReason(run.lines, input)}`);
    const stored = await deps.blobs.putFile(output, 'mp4');
    const size = outputSize(run.lines) ?? { width: media.width ?? 0, height: media.height ?? 0 };
    const web: WebVideo = { key: stored.key, ...size, codec: 'h264', sizeBytes: stored.sizeBytes };
    return (await deps.storage.media.mergeExif(mediaId, { webVideo: web })) ? web : null;
  } finally {
    await rm(dir, { recursive: true, force: true });
    await source.release();
  }
}

/** The output stream's size from ffmpeg's "Output #0 … Stream #0:0: Video: h264 …, 1080x1920" lines. */
function outputSize(lines: string[]): { width: number; height: number } | null {
  const at = lines.findIndex((l) => l.startsWith('Output #0'));
  for (const line of at >= 0 ? lines.slice(at) : []) {
    const m = /Stream #0:\d+.*?: Video: .*?, (\d{2,5})x(\d{2,5})/.exec(line);
    if (m) return { width: Number(m[1]), height: Number(m[2]) };
  }
  return null;
}
