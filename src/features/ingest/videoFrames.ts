/**
 * Samples a video's frames with ffmpeg: the poster (first decodable frame),
 * then a frame at each scene change, bounded by a minimum and a maximum
 * interval, and capped per video.
 *
 * One ffmpeg pass decodes the video once:
 *
 *   -map 0:V:0                 the first real video stream (never cover art)
 *   select='…'                 which frames to keep (see selectExpression)
 *   scale=…                    long side ≤ maxSide, aspect kept; ffmpeg has
 *                              already applied the rotation tag (autorotate)
 *   showinfo                   logs each kept frame's pts: exact timestamps
 *   -vsync vfr | -fps_mode vfr keep only the selected frames (no duplicates)
 *   -frames:v maxFrames        the hard cap
 *   -q:v 3                     JPEG quality (1 best … 31 worst)
 *
 * The JPEGs are written into a private temporary folder under `workDir`,
 * read back into memory, and the folder is removed whatever happens.
 *
 * Defaults (documented in DEFAULT_FRAME_SAMPLING):
 *  - a frame when at least `minInterval` (1 s) passed since the last kept one
 *    and the scene score is above `sceneThreshold` (0.3), or when `maxInterval`
 *    passed whatever the score;
 *  - `maxInterval` defaults to duration / 5 clamped to [1 s, 10 s], so that a
 *    6 s clip gives about six frames and a long static shot one every 10 s;
 *  - at most `maxFrames` (300) per video. For a long video the intervals are
 *    raised so that the cap covers the whole video instead of its beginning:
 *    maxInterval ≥ duration / maxFrames and minInterval ≥ 0.75 × duration /
 *    maxFrames (a one-hour video: one frame every 9 to 12 s, ≤ 300 in all).
 *    Very busy footage may still reach the cap before the end; `-frames:v`
 *    stops there.
 *
 * On the shared fixtures a short clip gives two frames and the longer ones a
 * handful, since none of their cuts scores above the scene threshold (the
 * counts: docs/measurements/features.md; the test checks them).
 *
 * Failures: a file ffmpeg cannot open or decode → DomainError 'unprocessable'
 * with a short reason a user can read; ffmpeg not installed → 'unavailable';
 * an abort (signal) kills ffmpeg and rejects with the signal's reason; the
 * time limit kills ffmpeg and rejects 'unprocessable'.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { invalid, unprocessable } from '../../platform/errors.js';
import { abortReason, failureReason, jpegSize, spawnFfmpeg, throwIfDiskFull, vfrOption } from './ffmpegRun.js';

/** One sampled frame. */
export interface SampledFrame {
  /** Seconds from the start of the video, ≥ 0 (and ≤ duration when known). */
  timestamp: number;
  /** The frame as a JPEG. */
  jpeg: Buffer;
  /** Pixel size of the JPEG (display orientation, long side ≤ maxSide). */
  width: number;
  height: number;
}

export interface FrameSamplingOptions {
  /** The ffmpeg executable (see resolveFfmpeg). */
  ffmpegPath: string;
  /** Seconds, from probeVideo; null when unknown. */
  duration: number | null;
  /** A folder to create the temporary frame folder in (removed afterwards). */
  workDir: string;
  /** Scene-change score (0..1) above which a frame is taken. Default 0.3. */
  sceneThreshold?: number;
  /** Seconds: no two frames closer than this (except a forced maxInterval frame). Default 1. */
  minInterval?: number;
  /** Seconds: never a longer gap than this. Default clamp(duration / 5, 1, 10). */
  maxInterval?: number;
  /** Cap on frames per video. Default 300. */
  maxFrames?: number;
  /** Long side of the written frames, in pixels; smaller frames are not enlarged. Default 1280. */
  maxSide?: number;
  /** Aborting kills ffmpeg and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Time limit in ms. Default defaultFrameTimeoutMs(duration). */
  timeoutMs?: number;
  /**
   * Only `maxFrames` frames from `from` seconds (the frame there is selected again, as the poster is), the
   * intervals staying the whole video's; timestamps as a whole pass gives them. videoSegments.ts samples a long
   * video window by window.
   */
  window?: { from: number; maxFrames: number };
}

export type PosterOptions = Pick<
  FrameSamplingOptions,
  'ffmpegPath' | 'duration' | 'workDir' | 'maxSide' | 'signal' | 'timeoutMs'
>;

export const DEFAULT_FRAME_SAMPLING = {
  sceneThreshold: 0.3,
  minInterval: 1,
  /** maxInterval = clamp(duration / maxIntervalDivisor, maxIntervalFloor, maxIntervalCeiling). */
  maxIntervalDivisor: 5,
  maxIntervalFloor: 1,
  maxIntervalCeiling: 10,
  maxFrames: 300,
  maxSide: 1280,
  jpegQuality: 3,
} as const;

/** The intervals one sampling run uses. */
export interface SamplingPlan {
  minInterval: number;
  maxInterval: number;
  maxFrames: number;
}

/**
 * The effective intervals for a video (pure; exported for tests).
 *
 * maxInterval: the given one, else clamp(duration / 5, 1, 10) (10 when the
 * duration is unknown); then raised to duration / maxFrames when that is
 * longer, so that the cap spans the whole video. minInterval: the given one,
 * raised to 0.75 × duration / maxFrames for the same reason, and never above
 * maxInterval.
 */
export function samplingPlan(input: {
  duration: number | null;
  minInterval?: number;
  maxInterval?: number;
  maxFrames?: number;
}): SamplingPlan {
  const d = DEFAULT_FRAME_SAMPLING;
  const duration =
    input.duration !== null && Number.isFinite(input.duration) && input.duration > 0 ? input.duration : null;
  const maxFrames = input.maxFrames ?? d.maxFrames;
  if (!Number.isInteger(maxFrames) || maxFrames < 1) throw invalid('maxFrames must be a whole number ≥ 1');
  let minInterval = input.minInterval ?? d.minInterval;
  if (!Number.isFinite(minInterval) || minInterval < 0) throw invalid('minInterval must be a number of seconds ≥ 0');
  let maxInterval: number;
  if (input.maxInterval !== undefined) {
    if (!Number.isFinite(input.maxInterval) || input.maxInterval <= 0)
      throw invalid('maxInterval must be a number of seconds > 0');
    maxInterval = input.maxInterval;
  } else {
    maxInterval =
      duration === null
        ? d.maxIntervalCeiling
        : clamp(duration / d.maxIntervalDivisor, d.maxIntervalFloor, d.maxIntervalCeiling);
  }
  if (duration !== null) {
    const spread = duration / maxFrames;
    maxInterval = Math.max(maxInterval, spread);
    minInterval = Math.max(minInterval, 0.75 * spread);
  }
  minInterval = Math.min(minInterval, maxInterval);
  return { minInterval: round6(minInterval), maxInterval: round6(maxInterval), maxFrames };
}

/**
 * The `select` filter expression: the first frame always (prev_selected_t is
 * NaN until a frame was selected); then a frame when maxInterval has passed,
 * or when minInterval has passed and the scene score is above the threshold.
 */
export function selectExpression(plan: SamplingPlan, sceneThreshold: number): string {
  const min = num(plan.minInterval);
  const max = num(plan.maxInterval);
  const th = num(sceneThreshold);
  return `isnan(prev_selected_t)+gte(t-prev_selected_t,${max})+gte(t-prev_selected_t,${min})*gt(scene,${th})`;
}

/** Default time limit: 60 s plus twice the duration (10 minutes when the duration is unknown). */
export function defaultFrameTimeoutMs(duration: number | null): number {
  if (duration === null || !Number.isFinite(duration) || duration <= 0) return 600_000;
  return Math.round(60_000 + 2_000 * duration);
}

/** Samples frames of a video; see the file comment. At least one frame, or it throws. */
export async function sampleVideoFrames(file: string, opts: FrameSamplingOptions): Promise<SampledFrame[]> {
  const threshold = opts.sceneThreshold ?? DEFAULT_FRAME_SAMPLING.sceneThreshold;
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1)
    throw invalid('sceneThreshold must be between 0 and 1');
  const plan = samplingPlan(opts);
  const filters = [`select='${selectExpression(plan, threshold)}'`, scaleFilter(opts.maxSide), 'showinfo'];
  const sync = await vfrOption(opts.ffmpegPath);
  return runFfmpeg(file, opts, filters, [...sync, '-frames:v', String(opts.window?.maxFrames ?? plan.maxFrames)]);
}

/** The first decodable frame (the poster), scaled like sampled frames. Cheap: decodes one frame. */
export async function posterFrame(file: string, opts: PosterOptions): Promise<SampledFrame> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const frames = await runFfmpeg(
    file,
    { ...opts, timeoutMs },
    [scaleFilter(opts.maxSide), 'showinfo'],
    ['-frames:v', '1'],
  );
  return frames[0];
}

// ---------------------------------------------------------------------------

/** Formats of text art or still images, which ffmpeg "plays" as video but which are not videos. */
const NOT_VIDEO_FORMATS = new Set(['tty', 'bin', 'xbin', 'adf', 'idf', 'image2', 'lavfi']);
const NOT_VIDEO_CODECS = new Set(['ansi', 'bintext', 'xbin', 'idf']);

async function runFfmpeg(
  file: string,
  opts: PosterOptions & Pick<FrameSamplingOptions, 'window'>,
  filters: string[],
  outputArgs: string[],
): Promise<SampledFrame[]> {
  const { signal } = opts;
  if (signal?.aborted) throw abortReason(signal);
  const { window } = opts;
  const abs = path.resolve(file);
  const timeoutMs = opts.timeoutMs ?? defaultFrameTimeoutMs(opts.duration);
  const tmp = await mkdtemp(path.join(opts.workDir, 'frames-'));
  try {
    // The image2 muxer expands %d in the whole name: escape any % in the folder.
    const pattern = path.join(tmp.replace(/%/g, '%%'), 'f%06d.jpg');
    const args = [
      '-hide_banner',
      '-nostdin',
      '-nostats',
      ...seekArgs(window),
      '-i',
      `file:${abs}`,
      '-map',
      '0:V:0',
      '-vf',
      filters.join(','),
      ...outputArgs,
      '-q:v',
      String(DEFAULT_FRAME_SAMPLING.jpegQuality),
      '-f',
      'image2',
      '-y',
      `file:${pattern}`,
    ];
    const run = await spawnFfmpeg(opts.ffmpegPath, args, timeoutMs, signal);
    if (run.outcome === 'aborted') throw abortReason(signal!);
    if (run.outcome === 'timeout') {
      throw unprocessable(`the video could not be decoded: it took longer than ${Math.round(timeoutMs / 1000)} s`);
    }
    if (run.inputFormat && (NOT_VIDEO_FORMATS.has(run.inputFormat) || run.inputFormat.endsWith('_pipe'))) {
      throw unprocessable(
        `the video could not be decoded: the file is not a video (ffmpeg reads it as ${run.inputFormat})`,
      );
    }
    if (run.videoCodec && NOT_VIDEO_CODECS.has(run.videoCodec)) {
      throw unprocessable('the video could not be decoded: the file is not a video (it is text)');
    }
    throwIfDiskFull(run.lines);
    if (run.code !== 0) throw unprocessable(`the video could not be decoded: ${failureReason(run.lines, abs)}`);

    const names = (await readdir(tmp)).filter((n) => /^f\d{6}\.jpg$/.test(n)).sort();
    if (names.length === 0) {
      const reason = failureReason(run.lines, abs, 'no frame could be decoded; the file may be truncated or damaged');
      throw unprocessable(`the video could not be decoded: ${reason}`);
    }
    const count = Math.min(names.length, run.frames.length);
    if (count === 0) throw unprocessable('the video could not be decoded: ffmpeg reported no frame times');
    const frames: SampledFrame[] = [];
    let last = -Infinity;
    const rawTime = (i: number) => frameTime(run.frames[i], run.timeBase);
    if (window && window.from > 0 && !(Math.abs(rawTime(0) - window.from) < 0.002))
      throw new SeekMissed(`the window from ${window.from} s began at ${rawTime(0)} s`);
    for (let i = 0; i < count; i++) {
      const shown = run.frames[i];
      let t = rawTime(i);
      if (!Number.isFinite(t)) continue;
      t = round6(Math.max(0, t));
      if (opts.duration !== null && Number.isFinite(opts.duration) && opts.duration > 0)
        t = Math.min(t, round6(opts.duration));
      if (t <= last) continue; // strictly ascending and distinct
      const jpeg = await readFile(path.join(tmp, names[i]));
      const size = jpegSize(jpeg) ?? { width: shown.width, height: shown.height };
      if (!(size.width > 0 && size.height > 0)) continue;
      frames.push({ timestamp: t, jpeg, width: size.width, height: size.height });
      last = t;
    }
    if (frames.length === 0) throw unprocessable('the video could not be decoded: no usable frame');
    return frames;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** A shown frame's time in seconds: exact from its pts and the time base, else showinfo's rounded pts_time. */
function frameTime(shown: { pts: number | null; ptsTime: number }, timeBase: number | null): number {
  return shown.pts !== null && timeBase !== null ? shown.pts * timeBase : shown.ptsTime;
}

/**
 * A window's seek did not land on the frame at `from`: a container without an index (MPEG-TS), or timestamps
 * that do not start at 0. videoSegments.ts then samples the rest in one whole pass.
 */
export class SeekMissed extends Error {}

/**
 * A later window's input options: accurate seeking (decodes from the keyframe before, drops what precedes) to
 * just before `from`, the stream's own timestamps kept (-copyts) so the select filter sees the times a whole pass
 * would; runFfmpeg checks the first frame is the one at `from` (SeekMissed). The first window is the start of a
 * whole pass.
 */
function seekArgs(window: FrameSamplingOptions['window']): string[] {
  if (!window || window.from <= 0) return [];
  return ['-ss', num(Math.max(0, window.from - 0.0005)), '-copyts'];
}

/** Long side ≤ maxSide, aspect kept, never enlarged; even sizes for the encoder. */
function scaleFilter(maxSide: number = DEFAULT_FRAME_SAMPLING.maxSide): string {
  if (!Number.isInteger(maxSide) || maxSide < 16) throw invalid('maxSide must be a whole number of pixels ≥ 16');
  const s = maxSide;
  return `scale=w='if(gte(iw,ih),min(iw,${s}),-2)':h='if(gte(iw,ih),-2,min(ih,${s}))'`;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

function round6(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}

/** A number for an ffmpeg expression: plain decimal, never exponent notation. */
function num(v: number): string {
  return String(Number(v.toFixed(6)));
}
