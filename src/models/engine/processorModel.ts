/**
 * The image-to-image runners (matte, upscale) load the same pair: the model's
 * AutoProcessor and one transformers.js model class on the chosen device.
 */
import { AutoProcessor } from '@huggingface/transformers';
import type { ModelEntry } from '../catalog.js';
import { partBytes, type EngineContext } from './context.js';
import type { Loaded } from './registry.js';
import { SESSION_OPTIONS } from './sessionOptions.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export interface ProcessorModel {
  model: Any;
  processor: Any;
}

/** A transformers.js model class (AutoModelForImageSegmentation, AutoModelForImageToImage, …). */
export interface PretrainedModelClass {
  from_pretrained(id: string, options: Any): Promise<Any>;
}

/** Loads the processor and the model of `entry` with `modelClass`; the model part's files are its memory cost. */
export async function loadProcessorModel(
  ctx: EngineContext,
  entry: ModelEntry,
  modelClass: PretrainedModelClass,
): Promise<Loaded<ProcessorModel>> {
  const id = ctx.modelId(entry);
  const dtype = ctx.dtype(entry);
  const processor = await AutoProcessor.from_pretrained(id);
  const { value: model, device } = await ctx.devices.load(entry.name, (device) =>
    modelClass.from_pretrained(id, { dtype, device, session_options: SESSION_OPTIONS }),
  );
  return {
    value: { model, processor },
    device,
    bytes: partBytes(ctx, entry, ['model']),
    dispose: () => model.dispose(),
  };
}
