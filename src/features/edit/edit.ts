/**
 * POST /api/ai/edit: parse the prompt into a plan, apply it to the image
 * locally (sharp and the local matte / upscale models), keep the result in
 * the temporary output area, and answer both shapes of the spec at once.
 *
 * Which shape: shape 2 when the body has any of aspectRatio, outputFormat or
 * model (fields only shape 2 has), else shape 1. The two differ in the output
 * format field and its default handling; the answer is always the superset
 * (`edited_image`, `original_image`, `prompt`, `processing_time`, `url`,
 * `result`), so a client of either shape, and compat.md's `result` readers,
 * all find their fields.
 */
import { performance } from 'node:perf_hooks';
import { EDIT_FORMATS, loadAiImage } from '../ai/index.js';
import type { GenerateDeps } from '../generate/index.js';
import type { Principal } from '../kernel/services.js';
import { applyPlan } from './apply.js';
import type { EditDeps } from './operations/image.js';
import { canGenerate, generativeEdit } from './generative.js';
import { assertEditable, orderOperations, parsePrompt } from './parse.js';
import type { EditOperation, OutputFormat } from './types.js';
import { findLibraryItem, saveVersion, type SaveVersionDeps } from './version.js';

/** Shape 2's aspect ratios (interface.md). */
export const ASPECT_RATIOS = ['match_input_image', '1:1', '16:9', '9:16', '4:3', '3:4'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

/** The name the answer gives for the local editor (hosted model names in `model` map to it). */
export const LOCAL_EDITOR = 'local-editor';

export interface EditInput {
  image: string;
  prompt: string;
  /** Shape 1. */
  output_format?: OutputFormat;
  /** Shape 1: 1..100, default 90. */
  quality?: number;
  /** Shape 2. */
  aspectRatio?: AspectRatio;
  /** Shape 2. */
  outputFormat?: 'jpg' | 'png';
  /** Shape 2: a hosted model name; the local editor runs whatever is named. */
  model?: string;
  /** Ours: store the result as a derived version of the library item the image URL belongs to. */
  saveAsVersion?: boolean;
}

export const DEFAULT_QUALITY = 90;

/** The body's aspect ratio as a crop: it sets the ratio of the prompt's last crop, or adds a centred one. */
function withAspectRatio(ops: EditOperation[], aspectRatio: AspectRatio | undefined): EditOperation[] {
  if (!aspectRatio || aspectRatio === 'match_input_image') return ops;
  const [w, h] = aspectRatio.split(':').map(Number);
  const aspect: [number, number] = [w, h];
  const lastCrop = ops.map((o) => o.op).lastIndexOf('crop');
  if (lastCrop >= 0) {
    const crop = ops[lastCrop] as Extract<EditOperation, { op: 'crop' }>;
    return ops.map((o, i) => (i === lastCrop ? { ...crop, aspect } : o));
  }
  return orderOperations([...ops, { op: 'crop', aspect, subject: false }]);
}

/** What an edit uses: the image source, the operations' models, the generation queue and the library. */
export type EditImageDeps = EditDeps & GenerateDeps & SaveVersionDeps;

export async function editImage(deps: EditImageDeps, principal: Principal, input: EditInput) {
  const started = performance.now();
  const shape =
    input.aspectRatio !== undefined || input.outputFormat !== undefined || input.model !== undefined ? 2 : 1;
  const plan = parsePrompt(input.prompt);
  // What the editor cannot do goes to the generation model when one is installed (generative.ts), else 422.
  const handOver = (plan.unrecognised.length > 0 || plan.operations.length === 0) && canGenerate(deps);
  if (!handOver) assertEditable(plan);
  const operations = withAspectRatio(plan.operations, input.aspectRatio);

  // Check the library item before the work, so a refused version costs nothing.
  const item = input.saveAsVersion ? await findLibraryItem(deps, principal, input.image) : null;
  const source = await loadAiImage(deps, input.image, EDIT_FORMATS);

  const generated = handOver
    ? await generativeEdit(deps, principal, {
        image: source.buffer,
        mimeType: `image/${source.format}`,
        instruction: input.prompt,
      })
    : null;
  const requestFormat = shape === 2 ? (input.outputFormat ?? null) : (input.output_format ?? null);
  const quality = Math.round(input.quality ?? DEFAULT_QUALITY);
  const result = await applyPlan(deps, generated?.png ?? source.buffer, operations, {
    format: requestFormat,
    defaultFormat: 'jpg',
    quality,
  });

  const edited = await deps.outputs.save(result.bytes, result.format);
  const originalUrl =
    source.source === 'data-uri'
      ? (await deps.outputs.save(source.buffer, source.format === 'jpeg' ? 'jpg' : (source.format as OutputFormat))).url
      : input.image.trim();
  const version = item ? await saveVersion(deps, principal, item, result.bytes, result.format) : undefined;
  const seconds = Math.round(performance.now() - started) / 1000;

  return {
    // Shape 1 (interface.md)
    edited_image: edited.url,
    original_image: originalUrl,
    prompt: input.prompt,
    processing_time: seconds,
    // Shape 2 (interface.md) and compat.md
    url: edited.url,
    result: edited.url,
    // Ours: what ran and how
    shape,
    model: generated?.model ?? LOCAL_EDITOR,
    ...(input.model !== undefined && input.model !== LOCAL_EDITOR ? { requestedModel: input.model } : {}),
    models: result.models,
    operations: generated
      ? [{ op: 'generate', prompt: generated.prompt, description: generated.description }, ...result.applied]
      : result.applied,
    outputFormat: result.format,
    quality: result.format === 'png' ? null : quality,
    width: result.width,
    height: result.height,
    notes: result.notes,
    ...(plan.ignored.length ? { ignored: plan.ignored } : {}),
    ...(version ? { version } : {}),
  };
}
