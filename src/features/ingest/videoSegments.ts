/**
 * A long video's frames sampled window by window, each window's frames stored as it ends and the list kept as
 * the prepare job's progress (issue #29: a stopped or crashed extraction started again from the first frame).
 * A later attempt with that progress starts after the last frame stored.
 *
 * A window is a run of ffmpeg that stops after a few frames. The first is the start of a whole pass; each
 * next one seeks to the last frame kept (the select filter takes it again as its first, which is dropped, and
 * goes on from there exactly as a whole pass would: the same intervals, the same scene scores, the stream's
 * own timestamps). A window that ends short of its frames reached the end of the video. A file whose seeking
 * misses that frame (MPEG-TS) has the rest sampled in one whole pass. A video up to
 * LONG_VIDEO_SECONDS, or of unknown duration, is sampled in one pass as before.
 */
import type { FrameSamplingOptions, SampledFrame } from './videoFrames.js';
import type { Logger } from '../../platform/logger.js';
import { DEFAULT_FRAME_SAMPLING, sampleVideoFrames, samplingPlan } from './videoFrames.js';

/** Videos longer than this are sampled in windows. */
export const LONG_VIDEO_SECONDS = 60;
/** Frames per window (the first of a later window is the previous one's last, again). */
export const WINDOW_FRAMES = 24;

/** A sampled frame once stored. */
export interface StoredSample {
  timestamp: number;
  key: string;
  width: number;
  height: number;
}

/** The prepare job's progress while a video is sampled. */
export interface ExtractionCheckpoint {
  /** Which file, under which sampling settings: a checkpoint of anything else is ignored. */
  extraction: string;
  frames: StoredSample[];
  /** Whether the video's end (or the frame cap) was reached. */
  complete: boolean;
}

export interface WindowedSampling extends FrameSamplingOptions {
  /** Names the file (its blob key): part of the checkpoint's identity. */
  id: string;
  /** The stored progress of an earlier attempt, if any. */
  checkpoint?: unknown;
  /** Default LONG_VIDEO_SECONDS and WINDOW_FRAMES. */
  longVideoSeconds?: number;
  windowFrames?: number;
  /** Stores one frame's JPEG; returns its key. */
  store(frame: SampledFrame): Promise<string>;
  /** Whether a stored frame is still there (a checkpoint naming a missing one is ignored). */
  exists(key: string): Promise<boolean>;
  /** Says when a window fell back to a whole pass. */
  logger?: Pick<Logger, 'warn'>;
  /** Records the progress after each window. */
  save(checkpoint: ExtractionCheckpoint): Promise<void>;
}

/** Samples the video (see the file comment); the stored frames in time order. */
export async function sampleInWindows(file: string, opts: WindowedSampling): Promise<StoredSample[]> {
  const plan = samplingPlan(opts);
  const duration = opts.duration !== null && Number.isFinite(opts.duration) ? opts.duration : null;
  const storeAll = async (frames: SampledFrame[]) => {
    const out: StoredSample[] = [];
    for (const f of frames) out.push({ timestamp: f.timestamp, key: await opts.store(f), ...size(f) });
    return out;
  };
  if (duration === null || duration <= (opts.longVideoSeconds ?? LONG_VIDEO_SECONDS))
    return storeAll(await sampleVideoFrames(file, opts));

  const perWindow = Math.max(2, opts.windowFrames ?? WINDOW_FRAMES);
  const threshold = opts.sceneThreshold ?? DEFAULT_FRAME_SAMPLING.sceneThreshold;
  const extraction = JSON.stringify([opts.id, plan, threshold, opts.maxSide ?? DEFAULT_FRAME_SAMPLING.maxSide]);
  const state = (await resumable(opts.checkpoint, extraction, opts.exists)) ?? {
    extraction,
    frames: [],
    complete: false,
  };
  while (!state.complete) {
    const last = state.frames.at(-1)?.timestamp ?? null;
    const cap = Math.min(perWindow, plan.maxFrames - state.frames.length + (last === null ? 0 : 1));
    const window = { from: last ?? 0, maxFrames: cap };
    const sampled = await sampleVideoFrames(file, { ...opts, ...plan, window }).catch((err: unknown) => {
      // A seek that misses its frame (SeekMissed) or fails: the rest from a whole pass. A stop is a stop.
      if (last === null || opts.signal?.aborted) throw err;
      opts.logger?.warn('video frames: a window failed; sampling the rest in one pass', { file, err });
      return null;
    });
    // The whole pass's first frames are the ones kept: its frames after them are the rest.
    const after = (frames: SampledFrame[]) => frames.filter((f) => last === null || f.timestamp > last);
    const fresh = await storeAll(after(sampled ?? (await sampleVideoFrames(file, opts))));
    state.frames.push(...fresh);
    state.complete = !sampled || sampled.length < cap || fresh.length === 0 || state.frames.length >= plan.maxFrames;
    await opts.save(state);
  }
  return state.frames;
}

const size = (f: SampledFrame) => ({ width: f.width, height: f.height });

/** The checkpoint when it is this extraction's and every frame it names is still stored; else null. */
async function resumable(
  checkpoint: unknown,
  extraction: string,
  exists: (key: string) => Promise<boolean>,
): Promise<ExtractionCheckpoint | null> {
  if (!checkpoint || typeof checkpoint !== 'object') return null;
  const c = checkpoint as Partial<ExtractionCheckpoint>;
  if (c.extraction !== extraction || !Array.isArray(c.frames) || typeof c.complete !== 'boolean') return null;
  for (const f of c.frames) if (typeof f?.key !== 'string' || !(await exists(f.key))) return null;
  return { extraction, frames: [...c.frames], complete: c.complete };
}
