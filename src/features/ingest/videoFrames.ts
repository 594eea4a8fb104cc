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
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { DomainError, invalid, unprocessable } from '../../errors.js';

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
  return runFfmpeg(file, opts, filters, [...sync, '-frames:v', String(plan.maxFrames)]);
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

interface ShownFrame {
  pts: number | null;
  ptsTime: number;
  width: number;
  height: number;
}

/** Formats of text art or still images, which ffmpeg "plays" as video but which are not videos. */
const NOT_VIDEO_FORMATS = new Set(['tty', 'bin', 'xbin', 'adf', 'idf', 'image2', 'lavfi']);
const NOT_VIDEO_CODECS = new Set(['ansi', 'bintext', 'xbin', 'idf']);

/** Keeps this many non-showinfo stderr lines for error messages. */
const KEEP_LINES = 60;

async function runFfmpeg(
  file: string,
  opts: PosterOptions,
  filters: string[],
  outputArgs: string[],
): Promise<SampledFrame[]> {
  const { signal } = opts;
  if (signal?.aborted) throw abortReason(signal);
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
    if (run.code !== 0) throw unprocessable(`the video could not be decoded: ${failureReason(run.lines, abs)}`);

    const names = (await readdir(tmp)).filter((n) => /^f\d{6}\.jpg$/.test(n)).sort();
    if (names.length === 0) {
      throw unprocessable(
        `the video could not be decoded: ${failureReason(run.lines, abs, 'no frame could be decoded; the file may be truncated or damaged')}`,
      );
    }
    const count = Math.min(names.length, run.frames.length);
    if (count === 0) throw unprocessable('the video could not be decoded: ffmpeg reported no frame times');
    const frames: SampledFrame[] = [];
    let last = -Infinity;
    for (let i = 0; i < count; i++) {
      const shown = run.frames[i];
      let t = shown.pts !== null && run.timeBase !== null ? shown.pts * run.timeBase : shown.ptsTime;
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

interface FfmpegRun {
  outcome: 'exited' | 'aborted' | 'timeout';
  code: number | null;
  frames: ShownFrame[];
  /** showinfo's input time base as a number (seconds per pts unit). */
  timeBase: number | null;
  inputFormat: string | null;
  videoCodec: string | null;
  /** The last stderr lines that are not showinfo output. */
  lines: string[];
}

/** Runs ffmpeg; resolves once the process has exited (so the caller may remove its output). */
function spawnFfmpeg(
  ffmpegPath: string,
  args: string[],
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<FfmpegRun> {
  return new Promise<FfmpegRun>((resolve, reject) => {
    const result: FfmpegRun = {
      outcome: 'exited',
      code: null,
      frames: [],
      timeBase: null,
      inputFormat: null,
      videoCodec: null,
      lines: [],
    };
    let child;
    try {
      child = spawn(ffmpegPath, args, { stdio: ['ignore', 'ignore', 'pipe'], windowsHide: true });
    } catch (e) {
      reject(startError(e));
      return;
    }
    let partial = '';
    let inInput = false;
    const onLine = (line: string) => {
      if (line.includes('Parsed_showinfo')) {
        const f = parseShowinfo(line);
        if (f) result.frames.push(f);
        const tb = /config in time_base:\s*(\d+)\/(\d+)/.exec(line);
        if (tb && Number(tb[2]) > 0) result.timeBase = Number(tb[1]) / Number(tb[2]);
        return;
      }
      const input = /^Input #0, (.+?), from /.exec(line);
      if (input) {
        result.inputFormat = input[1];
        inInput = true;
      } else if (inInput && !result.videoCodec) {
        const v = /^\s+Stream #0:\d+.*?: Video: ([A-Za-z0-9_]+)/.exec(line);
        if (v) result.videoCodec = v[1];
      }
      if (/^(Output|Stream mapping)/.test(line)) inInput = false;
      if (line.trim() === '') return;
      result.lines.push(line);
      if (result.lines.length > KEEP_LINES) result.lines.shift();
    };
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      partial += chunk;
      const parts = partial.split(/\r?\n|\r/);
      partial = parts.pop() ?? '';
      for (const p of parts) onLine(p);
    });

    let settled = false;
    const kill = (outcome: 'aborted' | 'timeout') => {
      if (result.outcome === 'exited') result.outcome = outcome;
      child.kill('SIGKILL');
    };
    const onAbort = () => kill('aborted');
    const timer = setTimeout(() => kill('timeout'), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (e) => {
      if (settled) return;
      settled = true;
      done();
      reject(startError(e));
    });
    child.on('close', (code) => {
      if (settled) return;
      settled = true;
      done();
      if (partial) onLine(partial);
      result.code = code;
      resolve(result);
    });
  });
}

function startError(e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'EACCES') {
    return new DomainError('unavailable', `ffmpeg cannot be run (${code}); set its path in the configuration`);
  }
  return new DomainError('unavailable', `ffmpeg cannot be run: ${(e as Error).message}`);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Parses one showinfo frame line (old and new ffmpeg: "n: 3 pts: 452000 pts_time:18.08 … s:768x432 …"). */
export function parseShowinfo(line: string): ShownFrame | null {
  const t = /\bpts_time:\s*(-?[0-9.eE+-]+|nan|NOPTS)/.exec(line);
  if (!t) return null;
  const ptsTime = Number(t[1]);
  const pts = /\bpts:\s*(-?\d+)/.exec(line);
  const size = /\bs:(\d+)x(\d+)/.exec(line);
  return {
    pts: pts ? Number(pts[1]) : null,
    ptsTime,
    width: size ? Number(size[1]) : 0,
    height: size ? Number(size[2]) : 0,
  };
}

/** A short reason from ffmpeg's stderr, in words a user can follow, with server paths removed. */
function failureReason(lines: string[], abs: string, fallback = 'ffmpeg could not read it'): string {
  const all = lines.join('\n');
  if (/Stream map '0:V:0' matches no streams/.test(all)) return 'it has no video stream';
  if (/No such file or directory/.test(all)) return 'the file is missing';
  if (/moov atom not found/i.test(all)) return 'the file is incomplete or not a video (moov atom not found)';
  if (/Invalid data found when processing input/.test(all)) return 'the file is damaged or not a video (invalid data)';
  if (
    /Cannot determine format of input stream|Could not find codec parameters|STSZ atom truncated|truncated/i.test(all)
  ) {
    return 'the file is truncated or damaged';
  }
  if (/Output file is empty|nothing was encoded/i.test(all))
    return 'no frame could be decoded; the file may be truncated or damaged';
  const interesting = lines.filter(
    (l) =>
      /error|invalid|not found|unsupported|failed|corrupt|no such/i.test(l) &&
      !/^\s*(Conversion failed!|Error marking filters)/.test(l),
  );
  const line = interesting[0] ?? fallback;
  const cleaned = line
    .trim()
    .replace(/^\[[^\]]*@ 0x[0-9a-f]+\]\s*/i, '')
    .split(`file:${abs}`)
    .join('input')
    .split(abs)
    .join('input');
  return cleaned.length > 200 ? cleaned.slice(0, 197) + '...' : cleaned;
}

/** Width and height from a JPEG's SOF marker, or null. */
export function jpegSize(buf: Buffer): { width: number; height: number } | null {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return null;
  let i = 2;
  while (i + 9 < buf.length) {
    if (buf[i] !== 0xff) return null;
    const marker = buf[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const len = buf.readUInt16BE(i + 2);
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
    i += 2 + len;
  }
  return null;
}

/** `-fps_mode vfr` on ffmpeg ≥ 5.1, `-vsync vfr` on older ones (the bundled 2018 build). Cached per executable. */
const vfrCache = new Map<string, Promise<string[]>>();
function vfrOption(ffmpegPath: string): Promise<string[]> {
  let hit = vfrCache.get(ffmpegPath);
  if (!hit) {
    hit = new Promise<string[]>((resolve) => {
      // Old builds reject the unknown option and exit 1; new ones print the version and exit 0.
      execFile(
        ffmpegPath,
        ['-hide_banner', '-fps_mode', 'vfr', '-version'],
        { timeout: 10_000, windowsHide: true },
        (err, _out, errOut) => {
          const code = (err as NodeJS.ErrnoException | null)?.code;
          if (code === 'ENOENT' || code === 'EACCES') vfrCache.delete(ffmpegPath); // let the real run report it
          resolve(!err && !/Unrecognized option/i.test(String(errOut)) ? ['-fps_mode', 'vfr'] : ['-vsync', 'vfr']);
        },
      );
    });
    vfrCache.set(ffmpegPath, hit);
  }
  return hit;
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
