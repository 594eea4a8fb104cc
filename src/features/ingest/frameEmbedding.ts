import type { Services } from '../kernel/services.js';
import { checkpointAfter, resumeFrom } from './checkpoint.js';
import type { JobContext } from '../../jobs/handler.js';
import { newMediaId } from '../../platform/ids.js';
import type { FrameRecord, NewObject, StageRecord } from '../../storage/types.js';
import { planStages } from './stages.js';

/** Frames embedded in one request to the model worker (a video's frames go in batches). */
const FRAMES_PER_BATCH = 16;

/**
 * Phase 2 of ingest (phases.ts): each frame's image embedding with the default embedder, on the frame's
 * whole-frame object, written with its vector in one transaction per frame (the vector index is updated
 * in that transaction: from then on the item is found by meaning). It replaces only the model's earlier
 * whole-frame object of the frame, so a retry leaves one. Records the `embeddings` stage (done, or waiting
 * for the embedder, which is no failure: phase 3 runs anyway, and the catch-up embeds once it is installed);
 * the other recorded stages stay until phase 3 records them all. Phase 3 makes the whole-frame object again,
 * labelled with the caption's first term.
 */
export async function embedMedia(
  deps: Pick<Services, 'storage' | 'blobs' | 'models'>,
  mediaId: string,
  ctx: Pick<JobContext, 'signal' | 'progress'> & { checkpoint?: unknown },
): Promise<'done' | 'gone'> {
  const media = await deps.storage.media.get(mediaId);
  if (!media || media.status !== 'active' || media.type === 'folder') return 'gone';
  const plan = planStages(deps.models);
  const frames = await deps.storage.analysis.framesOf(mediaId);
  if (plan.embed) {
    const info = deps.models.modelInfo();
    // A run stopped half-way (checkpoint.ts) left its batches embedded under this model: go on after them.
    const start = resumeFrom(embedCheckpoint(ctx.checkpoint), frames, info.id);
    for (let i = start; i < frames.length; i += FRAMES_PER_BATCH) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const batch = frames.slice(i, i + FRAMES_PER_BATCH);
      const images = await Promise.all(batch.map((f) => deps.blobs.readBuffer(f.blobKey)));
      const vectors = await deps.models.embedImages(info.name, images);
      for (let j = 0; j < batch.length; j++)
        await deps.storage.analysis.replaceModelObjects(batch[j].id, 'frame', [
          wholeFrameObject(batch[j], info.id, vectors[j]),
        ]);
      const done = checkpointAfter(frames, i + batch.length - 1, info.id);
      await ctx.progress({ ...done, embedded: done.done });
    }
  }
  await recordStage(
    deps,
    mediaId,
    plan.stages.find((s) => s.stage === 'embeddings')!,
  );
  return 'done';
}

/** Phase 2's progress as a checkpoint: `embedded` is its count of frames done. */
function embedCheckpoint(progress: unknown): unknown {
  if (!progress || typeof progress !== 'object') return null;
  const p = progress as { embedded?: unknown };
  return { ...progress, done: p.embedded };
}

/** The frame as an object: the whole picture, carrying the frame's vector (found by similarToObjectId too). */
function wholeFrameObject(frame: FrameRecord, modelId: string, vector: Float32Array): NewObject {
  const { width: w, height: h } = frame;
  return {
    id: newMediaId(),
    type: 'frame',
    label: 'frame',
    blobKey: frame.blobKey,
    polygon: [
      { x: 0, y: 0 },
      { x: w, y: 0 },
      { x: w, y: h },
      { x: 0, y: h },
    ],
    confidence: null,
    model: modelId,
    similarityModel: 'objects',
    embedding: { modelId, vector },
  };
}

/** Records one stage, keeping the item's other recorded stages. */
async function recordStage(deps: Pick<Services, 'storage'>, mediaId: string, stage: StageRecord): Promise<void> {
  const recorded = (await deps.storage.analysis.stagesOf([mediaId])).get(mediaId) ?? [];
  await deps.storage.analysis.setStages(mediaId, [...recorded.filter((s) => s.stage !== stage.stage), stage]);
}
