import { createHash } from 'node:crypto';
import type { Services } from '../kernel/services.js';
import type { FrameRecord, MediaRecord, StageRecord } from '../../storage/types.js';

/**
 * Where phase 3's run over a video's frames has got to (issue #29: a long video analysed again from its first
 * frame after every stop). It is the job's progress, which the queue keeps across a release (shutdown), a
 * retry after a failure and a crash; a new job (a reprocess, a catch-up) starts without one. Every frame's
 * analysis is written in its own transaction before the progress names it, so the frames it counts are done.
 */
export interface AnalysisCheckpoint {
  frames: number;
  done: number;
  /** The same as `frames`: for a progress display's "done of total". */
  total: number;
  /** The last frame done: a checkpoint names these frames only (a re-extraction gives new ids). */
  lastFrameId: string;
  /** The stages the frames were analysed under: a model installed meanwhile means starting again. */
  plan: string;
}

/** A short fingerprint of the stages a run does. */
export function planKey(stages: StageRecord[]): string {
  const text = stages.map((s) => `${s.stage}:${s.state}:${s.model ?? ''}`).join(',');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The progress to store after frame `index` (0-based) of `frames`. */
export function checkpointAfter(frames: FrameRecord[], index: number, plan: string): AnalysisCheckpoint {
  return { frames: frames.length, done: index + 1, total: frames.length, lastFrameId: frames[index].id, plan };
}

/** How many leading frames a stored checkpoint says are done under the same frames and plan; 0 otherwise. */
export function resumeFrom(checkpoint: unknown, frames: FrameRecord[], plan: string): number {
  if (!checkpoint || typeof checkpoint !== 'object') return 0;
  const c = checkpoint as Partial<AnalysisCheckpoint>;
  const done = c.done;
  if (c.frames !== frames.length || c.plan !== plan || typeof done !== 'number' || !Number.isInteger(done)) return 0;
  if (done < 1 || done > frames.length || frames[done - 1].id !== c.lastFrameId) return 0;
  return done;
}

/**
 * What the frames done before a stop give the rest of the run without a model call: each frame's stored
 * vector (its bytes where it has none) for moderation, and the first frame's caption for the description.
 */
export async function doneFrameInputs(
  deps: Pick<Services, 'storage' | 'blobs'>,
  media: MediaRecord,
  frames: FrameRecord[],
  embedModelId: string | null,
): Promise<{ inputs: Array<Buffer | Float32Array>; firstCaption: string | null }> {
  const inputs: Array<Buffer | Float32Array> = [];
  for (const frame of frames) {
    const vector = embedModelId ? await deps.storage.analysis.frameVector(frame.id, embedModelId) : null;
    inputs.push(vector ?? (await deps.blobs.readBuffer(frame.blobKey)));
  }
  const details = frames.length ? ((await deps.storage.media.frames([media.id])).get(media.id) ?? []) : [];
  const first = details.find((d) => d.id === frames[0]?.id);
  return { inputs, firstCaption: first?.captions.find((c) => c.status === 'active')?.text ?? null };
}
