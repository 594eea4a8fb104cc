import type { Services } from '../kernel/services.js';
import { DomainError } from '../../platform/errors.js';
import { isDiskFull } from '../../platform/diskSpace.js';
import { newMediaId } from '../../platform/ids.js';
import { resolveFfmpeg } from '../../files/binaries.js';
import type { JobContext } from '../../jobs/handler.js';
import type { FrameRecord, MediaRecord, StageRecord } from '../../storage/types.js';
import { checkpointAfter, doneFrameInputs, planKey, resumeFrom } from './checkpoint.js';
import { analyzeFrame, newFrameSequence } from './frameAnalysis.js';
import { embedMedia } from './frameEmbedding.js';
import { moderate } from './moderation.js';
import { enqueueRenditions } from './renditionJobs.js';
import { renderFrames } from './renditions.js';
import { planStages } from './stages.js';
import { settlePlaces } from './places.js';
import { sampleInWindows } from './videoSegments.js';

/** What analysing an item uses: limits and binaries, the library, the file store, the models. */
export type IngestDeps = Pick<Services, 'config' | 'storage' | 'blobs' | 'models'>;

export { INGEST_JOB, PRIORITY_FRESH, PRIORITY_REINDEX, type IngestPayload } from './phases.js';

/** A phase's job context; `checkpoint`: the job's stored progress, where an interrupted run got to. */
type PhaseContext = Pick<JobContext, 'signal' | 'progress' | 'logger'> & { checkpoint?: unknown };

/**
 * Analyses one item in one go, the three phases one after another (phases.ts): frames and renditions,
 * the frames' embeddings, then every other stage, and `ready`. The job runner runs the phases as jobs
 * of their own (jobs.ts); this is for scripts (the bench) and tests.
 */
export async function ingestMedia(deps: IngestDeps, mediaId: string, ctx: PhaseContext): Promise<'done' | 'gone'> {
  if ((await prepareMedia(deps, mediaId, ctx)) === 'gone') return 'gone';
  if ((await embedMedia(deps, mediaId, ctx)) === 'gone') return 'gone';
  return analyzeMedia(deps, mediaId, ctx);
}

/** An item the phases still have work on: active, not a folder. */
async function liveItem(deps: IngestDeps, mediaId: string): Promise<MediaRecord | null> {
  const media = await deps.storage.media.get(mediaId);
  return !media || media.status !== 'active' || media.type === 'folder' ? null : media;
}

/**
 * Phase 1: the item becomes `processing`; a video's frames are sampled (an image's one frame was made by
 * the upload); every frame gets its renditions. Sampling again keeps the frames of the same timestamps,
 * renditions already made are skipped: a retry resumes.
 */
export async function prepareMedia(deps: IngestDeps, mediaId: string, ctx: PhaseContext): Promise<'done' | 'gone'> {
  const media = await liveItem(deps, mediaId);
  if (!media) return 'gone';
  await deps.storage.media.setProcessingStatus(mediaId, 'processing', null);
  // The item's place from its position (and any other item's waiting), offline; never fails the item.
  await settlePlaces({ storage: deps.storage, logger: ctx.logger });
  const frames =
    media.type === 'video' ? await videoFrames(deps, media, ctx) : await deps.storage.analysis.framesOf(mediaId);
  if (frames.length === 0) throw new DomainError('unprocessable', 'the item has no frame to analyse');
  await renditionStage(deps, media, frames, ctx);
  return 'done';
}

/**
 * Phase 3: every stage whose model is installed (analyzeItem), then `ready`, even when some stages wait
 * for a model (a model that is missing is never a failure). Every step replaces its own earlier output,
 * so running it again (a retry, a crash, a reprocess) never duplicates anything; what the user wrote is kept.
 */
export async function analyzeMedia(deps: IngestDeps, mediaId: string, ctx: PhaseContext): Promise<'done' | 'gone'> {
  const media = await liveItem(deps, mediaId);
  if (!media) return 'gone';
  const frames = await deps.storage.analysis.framesOf(mediaId);
  if (frames.length === 0) throw new DomainError('unprocessable', 'the item has no frame to analyse');
  await analyzeItem(deps, media, frames, ctx);
  await deps.storage.media.setProcessingStatus(mediaId, 'ready', null);
  return 'done';
}

/**
 * The thumbnails, before the models: a client shows the item while it is analysed. Frames that have them
 * are skipped (a retry resumes). A failure here does not fail the item: its own `renditions` job, retried
 * with backoff, makes them later.
 */
async function renditionStage(
  deps: IngestDeps,
  media: MediaRecord,
  frames: FrameRecord[],
  ctx: Pick<JobContext, 'signal' | 'logger'>,
): Promise<void> {
  try {
    await renderFrames(deps, media, frames, ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted || isDiskFull(err)) throw err; // a full disk pauses the whole job (jobs/execution.ts)
    ctx.logger.warn('thumbnails failed; queued to try again', { mediaId: media.id, err });
    await enqueueRenditions(deps, media.id);
  }
}

/**
 * Runs every stage whose model is installed now on the item's frames: per
 * frame a caption, the whole-frame object with its embedding, objects, faces
 * and text with crops and embeddings; then moderation and a description; and
 * records which stages ran and which wait for a model (stages.ts).
 */
export async function analyzeItem(
  deps: IngestDeps,
  media: MediaRecord,
  frames: FrameRecord[],
  ctx: Pick<PhaseContext, 'signal' | 'progress' | 'checkpoint'>,
): Promise<StageRecord[]> {
  const plan = { ...planStages(deps.models), textVectors: deps.config.ingestTextVectors === 'eager' };
  const key = planKey(plan.stages);
  // A run stopped half-way (shutdown, crash, failure) left its frames done: they are read, not analysed again.
  const start = resumeFrom(ctx.checkpoint, frames, key);
  const embedId = plan.embed ? deps.models.modelInfo().id : null;
  const resumed = await doneFrameInputs(deps, media, frames.slice(0, start), embedId);
  // Per frame for moderation: the frame's vector when analysis made or read one, else its bytes.
  const frameInputs: Array<Buffer | Float32Array> = resumed.inputs;
  let firstCaption: string | null = resumed.firstCaption;
  const sequence = media.type === 'video' ? newFrameSequence() : undefined;
  for (let i = start; i < frames.length; i++) {
    if (ctx.signal.aborted) throw ctx.signal.reason; // the safe point: between two frames
    const bytes = await deps.blobs.readBuffer(frames[i].blobKey);
    const result = await analyzeFrame(deps, frames[i], bytes, plan, sequence);
    frameInputs.push(result.objects.find((o) => o.type === 'frame')?.embedding?.vector ?? bytes);
    await deps.storage.analysis.replaceFrameAnalysis(frames[i].id, result);
    firstCaption ??= result.captionText;
    await ctx.progress(checkpointAfter(frames, i, key));
  }
  await describeItem(deps, media, plan.embed ? frameInputs : [], firstCaption);
  await deps.storage.analysis.setStages(media.id, plan.stages);
  return plan.stages;
}

/** Moderation (when frames are given: up to 8 spread over the item) and the first caption as description. */
async function describeItem(
  deps: IngestDeps,
  media: MediaRecord,
  frameBytes: Array<Buffer | Float32Array>,
  firstCaption: string | null,
) {
  const step = Math.max(1, Math.ceil(frameBytes.length / 8));
  const moderation = frameBytes.length
    ? await moderate(
        deps,
        frameBytes.filter((_, i) => i % step === 0),
      )
    : null;
  await deps.storage.media.mutateMetadata(media.id, media.createdById, (metadata) => {
    const next = { ...metadata };
    const existing = metadata.moderation as { source?: string } | undefined;
    // Never overwrite what a user wrote: only our own earlier verdict is replaced.
    if (moderation && (!existing || existing.source === 'model')) next.moderation = moderation;
    if (
      firstCaption &&
      (metadata.description === undefined || metadata.description === null || metadata.description === '')
    ) {
      next.description = firstCaption;
    }
    return next;
  });
}

/**
 * Samples a video's frames with ffmpeg and makes them the item's frames (poster = frame 0). A long video is
 * sampled window by window, the frames stored so far kept as the job's progress: a stopped run resumes there.
 */
async function videoFrames(
  deps: Pick<Services, 'config' | 'storage' | 'blobs'>,
  media: MediaRecord,
  ctx: Pick<PhaseContext, 'signal' | 'progress' | 'checkpoint' | 'logger'>,
): Promise<FrameRecord[]> {
  // ffmpeg reads a path: with S3 a temporary copy of the video, removed once the frames are out.
  const video = await deps.blobs.materialize(media.blobKey!);
  const sampled = await sampleInWindows(video.path, {
    ffmpegPath: resolveFfmpeg(deps.config.ffmpegPath),
    duration: media.duration,
    workDir: deps.blobs.tmpDir,
    signal: ctx.signal,
    id: media.blobKey!,
    checkpoint: ctx.checkpoint,
    store: async (f) => (await deps.blobs.putBuffer(f.jpeg, 'jpg')).key,
    exists: (key) => deps.blobs.exists(key),
    save: (checkpoint) => ctx.progress(checkpoint),
    logger: ctx.logger,
  }).finally(() => video.release());
  const frames = sampled.map((f) => ({
    id: newMediaId(),
    timestamp: formatTimestamp(f.timestamp),
    blobKey: f.key,
    width: f.width,
    height: f.height,
  }));
  return deps.storage.analysis.syncFrames(media.id, frames, media.createdById);
}

/** Seconds as the spec's string, to the millisecond, without trailing zeros ("0", "2.5", "12.042"). */
export function formatTimestamp(seconds: number): string {
  return String(Math.round(seconds * 1000) / 1000);
}

/**
 * Words for processingError: what went wrong, without stack traces or paths.
 * A model that is missing never gets here (its stages wait); a model that
 * crashed or stopped is named as such, with what to do.
 */
export function describeFailure(err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err))
    .split('\n')[0]
    .replace(/\/[^\s:]+/g, '…')
    .slice(0, 300);
  if (err instanceof DomainError && err.code === 'unavailable' && /^model worker (failed|stopped)/.test(message))
    return `a model failed while analysing this item (${message}); reprocess it to try again`;
  if (err instanceof DomainError) return err.message;
  return `analysis failed: ${message}`;
}
