/**
 * A long video's frames sampled window by window, each window's frames stored as it ends and the list kept as
 * the prepare job's progress (issue #29: a stopped or crashed extraction started again from the first frame).
 * A later attempt with that progress starts after the last frame stored.
 *
 * A window starts at the last frame kept (the select filter takes it again as its first, which is dropped, and
 * goes on from there exactly as a whole pass would: the same intervals, the same scene scores, the stream's own
 * timestamps) and spans at least two maximum intervals, so it always adds a frame unless the video ends.
 * A video no longer than one window, or of unknown duration, is sampled in one pass as before.
 */
import type { FrameSamplingOptions, SampledFrame } from './videoFrames.js';
import { DEFAULT_FRAME_SAMPLING, sampleVideoFrames, samplingPlan } from './videoFrames.js';

/** Seconds of video per window (at least two maximum intervals). */
export const WINDOW_SECONDS = 60;

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
  /** Seconds of the video looked at so far. */
  until: number;
}

export interface WindowedSampling extends FrameSamplingOptions {
  /** Names the file (its blob key): part of the checkpoint's identity. */
  id: string;
  /** The stored progress of an earlier attempt, if any. */
  checkpoint?: unknown;
  windowSeconds?: number;
  /** Stores one frame's JPEG; returns its key. */
  store(frame: SampledFrame): Promise<string>;
  /** Whether a stored frame is still there (a checkpoint naming a missing one is ignored). */
  exists(key: string): Promise<boolean>;
  /** Records the progress after each window. */
  save(checkpoint: ExtractionCheckpoint): Promise<void>;
}

/** Samples the video (see the file comment); the stored frames in time order. */
export async function sampleInWindows(file: string, opts: WindowedSampling): Promise<StoredSample[]> {
  const plan = samplingPlan(opts);
  const duration = opts.duration !== null && Number.isFinite(opts.duration) ? opts.duration : null;
  const seconds = Math.max(opts.windowSeconds ?? WINDOW_SECONDS, 2 * plan.maxInterval);
  const storeAll = async (frames: SampledFrame[]) => {
    const out: StoredSample[] = [];
    for (const f of frames) out.push({ timestamp: f.timestamp, key: await opts.store(f), ...size(f) });
    return out;
  };
  if (duration === null || duration <= seconds) return storeAll(await sampleVideoFrames(file, opts));

  const threshold = opts.sceneThreshold ?? DEFAULT_FRAME_SAMPLING.sceneThreshold;
  const extraction = JSON.stringify([opts.id, plan, threshold, opts.maxSide ?? DEFAULT_FRAME_SAMPLING.maxSide]);
  const state = (await resumable(opts.checkpoint, extraction, opts.exists)) ?? { extraction, frames: [], until: 0 };
  while (state.until < duration && state.frames.length < plan.maxFrames) {
    const last = state.frames.at(-1)?.timestamp ?? null;
    const from = last ?? 0;
    const window = { from, seconds, maxFrames: plan.maxFrames - state.frames.length + (last === null ? 0 : 1) };
    const sampled = await sampleVideoFrames(file, { ...opts, ...plan, window });
    const fresh = await storeAll(sampled.filter((f) => last === null || f.timestamp > last));
    state.frames.push(...fresh);
    state.until = from + seconds;
    await opts.save(state);
    if (fresh.length === 0) break; // the video ends (or stops decoding) before its stated duration
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
  if (c.extraction !== extraction || !Array.isArray(c.frames) || typeof c.until !== 'number') return null;
  for (const f of c.frames) if (typeof f?.key !== 'string' || !(await exists(f.key))) return null;
  return { extraction, frames: [...c.frames], until: c.until };
}
