/**
 * The VisionModels methods served by the main worker pool: embeddings,
 * zero-shot labels, captions, detections, face vectors, mattes and warm-up.
 * Each checks its inputs here and hands inference to the pool.
 */
import type { ModelEntry } from '../catalog.js';
import type { Detection } from '../vision/types.js';
import { asBuffer, imageSize, pngSize } from '../imageToImage.js';
import type {
  CaptionOptions,
  CaptionResult,
  DetectionResult,
  DetectionRole,
  FaceVectors,
  VisionModels,
  ZeroShotScore,
} from '../types.js';
import type { FacadeContext } from './context.js';
import { captionPlan, checkImages, checkList, checkTexts, MAX_TEXT_CHARS } from './requests.js';
import { DomainError } from '../../platform/errors.js';

type AnalysisMethods = Pick<
  VisionModels,
  'embedImages' | 'embedTexts' | 'caption' | 'zeroShot' | 'detect' | 'embedFaces' | 'matte' | 'warmUp'
>;

async function embedImages(ctx: FacadeContext, model: string | null | undefined, images: Buffer[]) {
  const entry = ctx.directory.usable(model ?? ctx.directory.roles.embed, ['embed']);
  checkImages(images);
  return ctx.embedCache.embed(
    entry.name,
    images,
    async (missing) => (await ctx.pool.submit('embedImages', entry.name, missing)) as Float32Array[],
  );
}

async function embedTexts(ctx: FacadeContext, model: string | null | undefined, texts: string[]) {
  const entry = ctx.directory.usable(model ?? ctx.directory.roles.embed, ['embed']);
  checkTexts(texts);
  return (await ctx.pool.submit('embedTexts', entry.name, texts)) as Float32Array[];
}

async function caption(
  ctx: FacadeContext,
  images: Buffer[],
  prompt?: string,
  opts: CaptionOptions = {},
): Promise<CaptionResult[]> {
  checkImages(images);
  if (prompt !== undefined && (typeof prompt !== 'string' || prompt.length > MAX_TEXT_CHARS))
    throw new DomainError('invalid_input', 'prompt too long');
  const plan = captionPlan(ctx.directory, prompt, opts.model);
  const texts = await ctx.pool.submit('caption', plan.entry.name, images, {
    prompt: plan.prompt,
    maxNewTokens: opts.maxNewTokens,
  });
  return texts.map((text) => ({ text: String(text), model: plan.entry.name }));
}

async function zeroShot(
  ctx: FacadeContext,
  image: Buffer,
  labels: string[],
  opts: { model?: string; template?: string } = {},
): Promise<ZeroShotScore[]> {
  checkList(labels, 'labels');
  const template = opts.template ?? 'a photo of {}';
  if (!template.includes('{}')) throw new DomainError('invalid_input', 'template must contain {}');
  const [[imageVector], textVectors] = await Promise.all([
    embedImages(ctx, opts.model, [image]),
    embedTexts(
      ctx,
      opts.model,
      labels.map((label) => template.replaceAll('{}', label)),
    ),
  ]);
  const similarity = textVectors.map((textVector) => textVector.reduce((sum, x, i) => sum + x * imageVector[i], 0));
  const max = Math.max(...similarity);
  const exp = similarity.map((value) => Math.exp(100 * (value - max)));
  const sum = exp.reduce((a, b) => a + b, 0);
  return labels
    .map((label, i) => ({ label, score: exp[i] / sum, similarity: similarity[i] }))
    .sort((a, b) => b.score - a.score);
}

/** The detector ids, asked of the worker once per model (they hash the model file). */
function detectorIds(ctx: FacadeContext): (entry: ModelEntry) => Promise<string> {
  const ids = new Map<string, string>();
  return async (entry) => {
    let id = ids.get(entry.name);
    if (!id) {
      id = String((await ctx.pool.submit('modelId', entry.name, ['']))[0]);
      ids.set(entry.name, id);
    }
    return id;
  };
}

async function detect(
  ctx: FacadeContext,
  detectorId: (entry: ModelEntry) => Promise<string>,
  role: DetectionRole,
  image: Buffer,
  opts: { minScore?: number } = {},
): Promise<DetectionResult | null> {
  const entry = ctx.directory.roleEntry(role);
  if (!entry) return null;
  checkImages([image]);
  const [json] = await ctx.pool.submit('detect', entry.name, [image], { minScore: opts.minScore });
  return { model: entry.name, modelId: await detectorId(entry), detections: JSON.parse(String(json)) as Detection[] };
}

async function embedFaces(
  ctx: FacadeContext,
  detectorId: (entry: ModelEntry) => Promise<string>,
  image: Buffer,
  faces: Detection[],
): Promise<FaceVectors | null> {
  const entry = ctx.directory.roleEntry('embedFaces');
  if (!entry) return null;
  if (faces.length === 0) return { model: entry.name, modelId: await detectorId(entry), vectors: [] };
  const [flat] = (await ctx.pool.submit('embedFaces', entry.name, [image], {
    faces: JSON.stringify(faces),
  })) as Float32Array[];
  const dims = flat.length / faces.length;
  const vectors = faces.map((_, i) => flat.slice(i * dims, (i + 1) * dims));
  return { model: entry.name, modelId: await detectorId(entry), vectors };
}

async function matte(
  ctx: FacadeContext,
  image: Buffer,
): Promise<{ mask: Buffer; model: string; width: number; height: number } | null> {
  const entry = ctx.directory.roleEntry('removeBackground');
  if (!entry) return null;
  checkImages([image]);
  await imageSize(image, ctx.config.maxImagePixels);
  const [png] = (await ctx.pool.submit('matte', entry.name, [image])) as Uint8Array[];
  return { mask: asBuffer(png), model: entry.name, ...pngSize(png) };
}

async function warmUp(ctx: FacadeContext, names?: string[]): Promise<void> {
  const wanted = names ?? [ctx.directory.roles.embed];
  await Promise.all(
    wanted.map((name) =>
      ctx.pool.submit(
        'warm',
        ctx.directory.usable(name, ['embed', 'caption', 'prompt', 'upscale', 'remove-background']).name,
        [],
      ),
    ),
  );
}

export function analysisMethods(ctx: FacadeContext): AnalysisMethods {
  const detectorId = detectorIds(ctx);
  return {
    embedImages: (model, images) => embedImages(ctx, model, images),
    embedTexts: (model, texts) => embedTexts(ctx, model, texts),
    caption: (images, prompt, opts) => caption(ctx, images, prompt, opts),
    zeroShot: (image, labels, opts) => zeroShot(ctx, image, labels, opts),
    detect: (role, image, opts) => detect(ctx, detectorId, role, image, opts),
    embedFaces: (image, faces) => embedFaces(ctx, detectorId, image, faces),
    matte: (image) => matte(ctx, image),
    warmUp: (names) => warmUp(ctx, names),
  };
}
