/**
 * Reads a video's shape with ffprobe: display dimensions, duration, codec,
 * and when it was recorded.
 *
 * ffprobe runs through execFile (no shell, so no quoting issues) with a time
 * limit, and the input is passed as `file:<path>` so that no name can make
 * ffprobe open a network or concat protocol instead of the file.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { DomainError, unprocessable } from '../platform/errors.js';
import { takenAtFromTags } from './captureTime.js';

/** What probeVideo learns about a video. */
export interface VideoProbe {
  /** Display width in pixels (rotation applied: a portrait phone video is taller than wide). */
  width: number;
  /** Display height in pixels (rotation applied). */
  height: number;
  /** Seconds; null when the container does not say (e.g. some browser-recorded WebM). */
  duration: number | null;
  /** Video codec name as ffprobe says it: h264, hevc, vp9, av1 ... */
  codec: string;
  /** ffprobe's format_name, e.g. 'mov,mp4,m4a,3gp,3g2,mj2' or 'matroska,webm'. */
  container: string;
  /** Clockwise rotation to apply for display: 0, 90, 180 or 270. */
  rotation: number;
  /** Average frames per second, when known. */
  fps: number | null;
  /** Whether an audio stream is present. */
  hasAudio: boolean;
  /** When it was recorded (the container's creation time), ISO UTC; null when unknown (captureTime.ts). */
  takenAt: string | null;
}

/** ffprobe's time limit: a well-formed file is probed in well under a second. */
export const PROBE_TIMEOUT_MS = 30_000;

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  duration?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  tags?: Record<string, string>;
  side_data_list?: Array<{ side_data_type?: string; rotation?: number | string }>;
  disposition?: Record<string, number>;
}
interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { format_name?: string; duration?: string; tags?: Record<string, string> };
}

/**
 * Probes a video file. Throws DomainError 'unprocessable' when ffprobe cannot
 * read it or it has no video stream, 'unavailable' when ffprobe itself cannot
 * be run.
 */
export async function probeVideo(file: string, ffprobePath: string): Promise<VideoProbe> {
  const abs = path.resolve(file);
  const args = ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', `file:${abs}`];
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      ffprobePath,
      args,
      { timeout: PROBE_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, windowsHide: true, encoding: 'utf8' },
      (err, out, errOut) => {
        if (!err) return resolve(out);
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null };
        if (e.code === 'ENOENT' || e.code === 'EACCES') {
          return reject(
            new DomainError('unavailable', `ffprobe cannot be run (${e.code}); set its path in the configuration`),
          );
        }
        if (e.killed || e.signal === 'SIGTERM') {
          return reject(unprocessable('the file is not a playable video: probing it took too long'));
        }
        reject(unprocessable(`the file is not a playable video: ${reason(errOut, abs)}`));
      },
    );
  });

  let parsed: FfprobeOutput;
  try {
    parsed = JSON.parse(stdout) as FfprobeOutput;
  } catch {
    throw unprocessable('the file is not a playable video: ffprobe gave no readable answer');
  }
  return fromFfprobe(parsed);
}

/** Turns ffprobe's JSON into a VideoProbe (exported for tests with canned output). */
export function fromFfprobe(parsed: FfprobeOutput): VideoProbe {
  const streams = parsed.streams ?? [];
  // Cover art in MP4/MKV shows up as a one-frame "video" stream: skip it.
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (!video) throw unprocessable('the file is not a playable video: it has no video stream');
  const w = video.width ?? 0;
  const h = video.height ?? 0;
  if (!(w > 0 && h > 0)) throw unprocessable('the file is not a playable video: the video stream has no dimensions');
  if (!video.codec_name) throw unprocessable('the file is not a playable video: unknown video codec');
  // ffprobe happily "plays" a JPEG or PNG as a one-frame video.
  const container = parsed.format?.format_name ?? 'unknown';
  if (container === 'image2' || container.endsWith('_pipe')) {
    throw unprocessable('the file is not a playable video: it is a still image');
  }

  const rotation = rotationOf(video);
  const swap = rotation === 90 || rotation === 270;
  return {
    width: swap ? h : w,
    height: swap ? w : h,
    duration: positive(parsed.format?.duration) ?? positive(video.duration) ?? null,
    codec: video.codec_name,
    container,
    rotation,
    fps: rate(video.avg_frame_rate) ?? rate(video.r_frame_rate),
    hasAudio: streams.some((s) => s.codec_type === 'audio'),
    takenAt: takenAtFromTags(
      parsed.format?.tags,
      [video, ...streams.filter((s) => s !== video)].map((s) => s.tags),
    ),
  };
}

/**
 * Clockwise display rotation. Older files carry a `rotate` tag (clockwise);
 * newer ffprobe reports a display matrix whose `rotation` is counter-clockwise
 * (a phone's portrait video shows -90 there and rotate=90 in the tag).
 */
function rotationOf(s: FfprobeStream): number {
  let deg: number | undefined;
  const tag = s.tags?.rotate;
  if (tag !== undefined && Number.isFinite(Number(tag))) deg = Number(tag);
  else {
    const matrix = s.side_data_list?.find((d) => d.rotation !== undefined);
    if (matrix && Number.isFinite(Number(matrix.rotation))) deg = -Number(matrix.rotation);
  }
  if (deg === undefined) return 0;
  const norm = (((Math.round(deg / 90) * 90) % 360) + 360) % 360;
  return norm;
}

function positive(v: string | undefined): number | undefined {
  const n = Number(v);
  return v !== undefined && Number.isFinite(n) && n > 0 ? n : undefined;
}

/** "30000/1001" → 29.97; "0/0" → undefined. */
function rate(v: string | undefined): number | null {
  if (!v) return null;
  const [a, b = '1'] = v.split('/');
  const n = Number(a) / Number(b);
  return Number.isFinite(n) && n > 0 ? Math.round(n * 1000) / 1000 : null;
}

/** ffprobe's first error line, with the server path taken out. */
function reason(stderr: string, abs: string): string {
  const line =
    (stderr || '')
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? 'ffprobe could not read it';
  const cleaned = line
    .replace(/^\[[^\]]*@ 0x[0-9a-f]+\]\s*/i, '') // "[mov,mp4,... @ 0x6787200] " demuxer prefix
    .split(`file:${abs}`)
    .join('input')
    .split(abs)
    .join('input');
  return cleaned.length > 200 ? cleaned.slice(0, 197) + '...' : cleaned;
}
