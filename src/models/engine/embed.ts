/**
 * Image and text embeddings with CLIP- or SigLIP-family models through the
 * real transformers.js classes. The vision and text towers load separately
 * (a text search never loads the vision tower) and stay warm in the registry.
 *
 * Differences that matter: CLIP's *WithProjection towers output
 * `image_embeds` / `text_embeds`; SigLIP's output `pooler_output`; SigLIP text
 * must be padded to max_length (it was trained that way). Neither is
 * normalised by the model, so we L2-normalise here.
 */
import { SESSION_OPTIONS } from './sessionOptions.js';
import {
  AutoImageProcessor,
  AutoTokenizer,
  CLIPTextModelWithProjection,
  CLIPVisionModelWithProjection,
  SiglipTextModel,
  SiglipVisionModel,
} from '@huggingface/transformers';
import { DomainError } from '../../platform/errors.js';
import type { ModelEntry } from '../catalog.js';
import { chunks, normalisedRows, partBytes, type EngineContext } from './context.js';
import { decodeImage, processorSide } from './images.js';
import type { Loaded } from './registry.js';

/** Largest batch handed to one session run. */
const MAX_RUN = 32;

/* transformers.js objects are callable at run time; its typings don't say so. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Callable = (...args: any[]) => Promise<any> | any;
interface Tower {
  model: Callable & { dispose(): Promise<unknown> };
  prep: Callable & { config?: Record<string, unknown> };
}
interface OutputTensor {
  data: Float32Array;
  dims: number[];
}

function outputName(entry: ModelEntry, kind: 'image' | 'text'): string {
  return entry.arch === 'siglip' ? 'pooler_output' : `${kind}_embeds`;
}

async function loadTower(ctx: EngineContext, entry: ModelEntry, kind: 'image' | 'text'): Promise<Loaded<Tower>> {
  const id = ctx.modelId(entry);
  const dtype = ctx.dtype(entry);
  const siglip = entry.arch === 'siglip';
  const ModelClass =
    kind === 'image'
      ? siglip
        ? SiglipVisionModel
        : CLIPVisionModelWithProjection
      : siglip
        ? SiglipTextModel
        : CLIPTextModelWithProjection;
  const prep =
    kind === 'image' ? await AutoImageProcessor.from_pretrained(id) : await AutoTokenizer.from_pretrained(id);
  const { value: model, device } = await ctx.devices.load(`${entry.name}:${kind}`, (device) =>
    ModelClass.from_pretrained(id, { dtype, device, session_options: SESSION_OPTIONS }),
  );
  return {
    value: { model: model as unknown as Tower['model'], prep: prep as unknown as Tower['prep'] },
    device,
    bytes: partBytes(ctx, entry, [kind === 'image' ? 'vision_model' : 'text_model']),
    dispose: () => model.dispose(),
  };
}

function rows(entry: ModelEntry, out: Record<string, OutputTensor>, kind: 'image' | 'text'): Float32Array[] {
  const tensor = out[outputName(entry, kind)];
  if (!tensor)
    throw new DomainError(
      'unavailable',
      `model ${entry.name} has no ${outputName(entry, kind)} output (outputs: ${Object.keys(out).join(', ')})`,
    );
  const [n, dims] = tensor.dims;
  if (dims !== entry.dims)
    throw new DomainError(
      'unavailable',
      `model ${entry.name} produced ${dims}-d vectors; the catalog says ${entry.dims}`,
    );
  return normalisedRows(tensor.data, n, dims);
}

export async function embedImages(
  ctx: EngineContext,
  entry: ModelEntry,
  images: Uint8Array[],
): Promise<Float32Array[]> {
  return ctx.registry.use(
    entry.name,
    'vision',
    () => loadTower(ctx, entry, 'image'),
    async (tower) => {
      const side = processorSide(tower.prep.config, 224);
      const result: Float32Array[] = [];
      for (const batch of chunks(images, MAX_RUN)) {
        const decoded = await Promise.all(
          batch.map((b) => decodeImage(b, { minSide: side, maxPixels: ctx.maxPixels })),
        );
        const inputs = await tower.prep(decoded);
        const out = await tower.model({ pixel_values: inputs.pixel_values });
        result.push(...rows(entry, out, 'image'));
      }
      return result;
    },
  );
}

export async function embedTexts(ctx: EngineContext, entry: ModelEntry, texts: string[]): Promise<Float32Array[]> {
  return ctx.registry.use(
    entry.name,
    'text',
    () => loadTower(ctx, entry, 'text'),
    async (tower) => {
      const result: Float32Array[] = [];
      for (const batch of chunks(texts, MAX_RUN)) {
        const inputs = tower.prep(batch, { padding: entry.arch === 'siglip' ? 'max_length' : true, truncation: true });
        const out = await tower.model(inputs);
        result.push(...rows(entry, out, 'text'));
      }
      return result;
    },
  );
}
