/**
 * Phases 2 and 3 of a video resume after the frames a stopped run finished (issue #29; checkpoint.ts): the
 * job's progress names the frames done, under which model or stages. ../shared's 30 s clip (5 frames), the
 * stand-in models, the model calls counted:
 * - phase 3 stopped after two frames and run again with its progress analyses the three others only; the two
 *   keep their rows; each frame ends with one caption and one whole-frame object, and the item its description;
 * - phase 2 with the progress of a finished run embeds nothing again; with another model's, everything;
 * - progress naming other frames (a re-extraction) or other stages (a model installed meanwhile) is ignored.
 */
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkpointAfter, planKey, resumeFrom } from '../../../src/features/ingest/checkpoint.js';
import { embedMedia } from '../../../src/features/ingest/frameEmbedding.js';
import { analyzeMedia, prepareMedia } from '../../../src/features/ingest/pipeline.js';
import { planStages } from '../../../src/features/ingest/stages.js';
import type { Services } from '../../../src/features/kernel/services.js';
import { createLogger } from '../../../src/platform/logger.js';
import type { FrameRecord } from '../../../src/storage/types.js';
import { sharedPath } from '../../helpers/skip.js';
import { startTestApp, type TestApp } from '../../helpers/testApp.js';

const INFERENCE = new Set(['caption', 'detect', 'embedImages', 'embedFaces']);

const t = suite<{ app: TestApp; id: string | null }>('analysis resumes');
t.before(async (ctx) => {
  ctx.app = await startTestApp({ ingestConcurrency: 0 });
  ctx.id = null;
  const file = sharedPath('fixtures/videos/car-detection.mp4', 'the analysis resume test');
  if (!file) return;
  const ds = await ctx.app.collection('Resume');
  const up = await ctx.app.upload({ datasetId: ds }, { bytes: readFileSync(file), filename: 'car.mp4' });
  assert.is(up.status, 200, JSON.stringify(up.body));
  ctx.id = up.body.mediaId;
});
t.after(async (ctx) => ctx.app.close());

/** The services with model calls counted per method. */
function counted(services: Services) {
  const calls: Record<string, number> = {};
  const models = new Proxy(services.models, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (INFERENCE.has(String(prop))) calls[String(prop)] = (calls[String(prop)] ?? 0) + 1;
        return value.apply(target, args);
      };
    },
  });
  const total = () => Object.values(calls).reduce((a, b) => a + b, 0);
  return { deps: { ...services, models } as Services, calls, total };
}

const quiet = createLogger('silent');
const ctxOf = (extra: { checkpoint?: unknown; progress?: (p: unknown) => Promise<void>; signal?: AbortSignal }) => ({
  signal: extra.signal ?? new AbortController().signal,
  progress: extra.progress ?? (async () => {}),
  logger: quiet,
  checkpoint: extra.checkpoint,
});

t('phase 3 stopped after two frames analyses only the other three when it runs again', async (ctx) => {
  if (!ctx.id) return;
  const s = ctx.app.app.services;
  assert.is(await prepareMedia(s, ctx.id, ctxOf({})), 'done');
  assert.is(await embedMedia(s, ctx.id, ctxOf({})), 'done');
  const frames = await s.storage.analysis.framesOf(ctx.id);
  assert.is(frames.length, 5);

  const whole = counted(s);
  await analyzeMedia(whole.deps, ctx.id, ctxOf({}));
  // Per frame a caption and the detectors; per item (moderation) what is left of embedImages.
  const perFrame = (whole.calls.caption + whole.calls.detect) / frames.length;
  assert.ok(perFrame >= 2 && Number.isInteger(perFrame), JSON.stringify(whole.calls));
  const frameCalls = (c: Record<string, number>) => (c.caption ?? 0) + (c.detect ?? 0);

  // Stopped: the signal aborts after the second frame's progress (a shutdown).
  const stopped = counted(s);
  const controller = new AbortController();
  let checkpoint: unknown = null;
  const err = await analyzeMedia(
    stopped.deps,
    ctx.id,
    ctxOf({
      signal: controller.signal,
      progress: async (p) => {
        checkpoint = p;
        if ((p as { done: number }).done === 2) controller.abort(new Error('shutting down'));
      },
    }),
  ).then(
    () => null,
    (e: Error) => e,
  );
  assert.is(err?.message, 'shutting down');
  assert.is(frameCalls(stopped.calls), 2 * perFrame);
  const before = await captionIds(s, ctx.id);

  const resumed = counted(s);
  await analyzeMedia(resumed.deps, ctx.id, ctxOf({ checkpoint }));
  assert.is(frameCalls(resumed.calls), 3 * perFrame, `model calls ${JSON.stringify(resumed.calls)}`);
  assert.is(resumed.calls.embedImages ?? 0, whole.calls.embedImages ?? 0, 'frames done before: stored vectors read');
  const after = await captionIds(s, ctx.id);
  assert.equal(after.slice(0, 2), before.slice(0, 2), 'the frames done before the stop were not analysed again');
  const detail = (await s.storage.media.frames([ctx.id])).get(ctx.id)!;
  for (const f of detail) {
    assert.is(f.captions.filter((c) => c.status === 'active').length, 1, `frame ${f.timestamp}: one caption`);
    const wholeFrame = f.objects.filter((o) => o.type === 'frame' && o.status === 'active');
    assert.is(wholeFrame.length, 1, `frame ${f.timestamp}: one frame object`);
  }
  const media = await s.storage.media.get(ctx.id);
  assert.is(media?.processingStatus, 'ready');
  assert.ok(typeof media?.metadata.description === 'string', 'described from the first frame');
});

t('phase 2 with a finished run’s progress embeds nothing again; another model’s progress is ignored', async (ctx) => {
  if (!ctx.id) return;
  const s = ctx.app.app.services;
  const frames = await s.storage.analysis.framesOf(ctx.id);
  const modelId = s.models.modelInfo().id;
  const done = { ...checkpointAfter(frames, frames.length - 1, modelId), embedded: frames.length };
  const again = counted(s);
  await embedMedia(again.deps, ctx.id, ctxOf({ checkpoint: done }));
  assert.is(again.total(), 0);
  const other = counted(s);
  await embedMedia(other.deps, ctx.id, ctxOf({ checkpoint: { ...done, plan: 'another-model' } }));
  assert.is(other.calls.embedImages, 1, 'one batch: every frame');
});

t('progress of other frames or other stages is ignored', async (ctx) => {
  if (!ctx.id) return;
  const s = ctx.app.app.services;
  const frames = await s.storage.analysis.framesOf(ctx.id);
  const key = planKey(planStages(s.models).stages);
  const c = checkpointAfter(frames, 2, key);
  assert.is(resumeFrom(c, frames, key), 3);
  assert.is(resumeFrom(c, frames, planKey([])), 0, 'other stages');
  const renewed: FrameRecord[] = frames.map((f, i) => (i === 2 ? { ...f, id: 'f'.repeat(32) } : f));
  assert.is(resumeFrom(c, renewed, key), 0, 'a re-extraction');
  assert.is(resumeFrom(c, frames.slice(0, 4), key), 0, 'fewer frames');
  assert.is(resumeFrom({ done: 9 }, frames, key), 0);
  assert.is(resumeFrom(null, frames, key), 0);
});

/** Each frame's active caption ids, in time order. */
async function captionIds(s: Services, id: string): Promise<string[][]> {
  const detail = (await s.storage.media.frames([id])).get(id)!;
  return detail.map((f) => f.captions.filter((c) => c.status === 'active').map((c) => c.id));
}

t.run();
