/**
 * Running ffmpeg for frame extraction: the child process with its time limit
 * and abort signal, what its stderr says (showinfo frame lines, the input's
 * format and codec, a short failure reason a user can read), the frame-sync
 * option of the installed version, and the size of the JPEGs it wrote.
 * Used by ./videoFrames.ts, which decides what to extract.
 */
import { insufficientStorage } from '../../platform/diskSpace.js';
import { execFile, spawn } from 'node:child_process';
import os from 'node:os';
import { DomainError } from '../../platform/errors.js';

/** Keeps this many non-showinfo stderr lines for error messages. */
const KEEP_LINES = 60;

/** One showinfo line: a frame ffmpeg passed on, with its time. */
export interface ShownFrame {
  pts: number | null;
  ptsTime: number;
  width: number;
  height: number;
}

export interface FfmpegRun {
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

/**
 * Runs ffmpeg; resolves once the process has exited (so the caller may remove its output). `niceness` (0–19)
 * lowers the process's scheduling priority, so a long background transcode yields the CPU to the server.
 */
export function spawnFfmpeg(
  ffmpegPath: string,
  args: string[],
  timeoutMs: number,
  signal: AbortSignal | undefined,
  niceness = 0,
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
    if (niceness > 0 && child.pid !== undefined) lowerPriority(child.pid, niceness);
    let partial = '';
    const onLine = stderrLineReader(result);
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

/**
 * Reads ffmpeg's stderr one line at a time into `result`: showinfo frames and time base, the
 * input's format and video codec, and the last non-empty other lines (kept for error messages).
 */
function stderrLineReader(result: FfmpegRun): (line: string) => void {
  let inInput = false;
  return (line) => {
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
}

/** Best effort: a platform or a user that may not lower a priority just runs the process as it is. */
function lowerPriority(pid: number, niceness: number): void {
  try {
    os.setPriority(pid, niceness);
  } catch {
    // not permitted here: run at the normal priority
  }
}

function startError(e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'EACCES') {
    return new DomainError('unavailable', `ffmpeg cannot be run (${code}); set its path in the configuration`);
  }
  return new DomainError('unavailable', `ffmpeg cannot be run: ${(e as Error).message}`);
}

export function abortReason(signal: AbortSignal): unknown {
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

/**
 * ffmpeg stopped because the disk is full: that is no fault of the video, so not 'unprocessable' (which would fail
 * the item for good) but a full disk, which the job runner waits out (platform/diskSpace.ts).
 */
export function throwIfDiskFull(lines: string[]): void {
  if (lines.some((l) => /No space left on device|Disk quota exceeded/i.test(l)))
    throw insufficientStorage('ffmpeg could not write its output: the disk is full');
}

/** A short reason from ffmpeg's stderr, in words a user can follow, with server paths removed. */
export function failureReason(lines: string[], abs: string, fallback = 'ffmpeg could not read it'): string {
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
export function vfrOption(ffmpegPath: string): Promise<string[]> {
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
