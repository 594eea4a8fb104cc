/**
 * Captioning and prompt answering through transformers.js generation:
 * - vit-gpt2 (VisionEncoderDecoderModel): plain captions, batched;
 * - Florence-2: task tokens (<CAPTION>, <DETAILED_CAPTION>, <MORE_DETAILED_CAPTION>, <OCR>), one image per run;
 * - SmolVLM (Idefics3 family): free-form prompts via the chat template.
 *
 * The vit-gpt2 and Florence-2 paths run in tests against stand-ins of the
 * same shape; the SmolVLM path follows transformers.js' documented usage but
 * has not run here (no real weights or stand-in on the build machines).
 */
import { SESSION_OPTIONS } from './sessionOptions.js';
import {
  AutoModelForVision2Seq,
  AutoProcessor,
  AutoTokenizer,
  Florence2ForConditionalGeneration,
} from '@huggingface/transformers';
import { DomainError } from '../../platform/errors.js';
import { ARCH_INFO, type ModelEntry } from '../catalog.js';
import { chunks, partBytes, type EngineContext } from './context.js';
import { decodeImage, processorSide } from './images.js';
import type { Loaded } from './registry.js';
import { FLORENCE_DEFAULT_TASK, FLORENCE_TEXT_TASKS } from '../tasks.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
interface Generator {
  model: Any;
  processor: Any;
  tokenizer?: Any;
}

async function loadGenerator(ctx: EngineContext, entry: ModelEntry): Promise<Loaded<Generator>> {
  const id = ctx.modelId(entry);
  const dtype = ctx.dtype(entry);
  const ModelClass = entry.arch === 'florence2' ? Florence2ForConditionalGeneration : AutoModelForVision2Seq;
  const processor = await AutoProcessor.from_pretrained(id);
  const tokenizer = entry.arch === 'vit-gpt2' ? await AutoTokenizer.from_pretrained(id) : undefined;
  const { value: model, device } = await ctx.devices.load(entry.name, (device) =>
    ModelClass.from_pretrained(id, { dtype, device, session_options: SESSION_OPTIONS }),
  );
  return {
    value: { model, processor, tokenizer },
    device,
    bytes: partBytes(ctx, entry, ARCH_INFO[entry.arch].parts),
    dispose: () => model.dispose(),
  };
}

export interface GenerateOptions {
  prompt?: string;
  maxNewTokens?: number;
}

/** One text per image. */
export async function generateTexts(
  ctx: EngineContext,
  entry: ModelEntry,
  images: Uint8Array[],
  opts: GenerateOptions,
): Promise<string[]> {
  return ctx.registry.use(
    entry.name,
    'generate',
    () => loadGenerator(ctx, entry),
    async (gen) => {
      const side = processorSide(gen.processor.image_processor?.config ?? gen.processor.config, 512);
      const decode = (b: Uint8Array) => decodeImage(b, { minSide: side, maxPixels: ctx.maxPixels });
      switch (entry.arch) {
        case 'vit-gpt2':
          return vitGpt2(gen, images, decode, opts.maxNewTokens ?? 30);
        case 'florence2':
          return florence2(gen, images, decode, opts.prompt ?? FLORENCE_DEFAULT_TASK, opts.maxNewTokens ?? 100);
        case 'smolvlm':
          if (!opts.prompt) throw new DomainError('invalid_input', `model ${entry.name} needs a prompt`);
          return smolvlm(gen, images, decode, opts.prompt, opts.maxNewTokens ?? 128);
        default:
          throw new DomainError('invalid_input', `model ${entry.name} does not write text`);
      }
    },
  );
}

type Decode = (b: Uint8Array) => Promise<Any>;

async function vitGpt2(gen: Generator, images: Uint8Array[], decode: Decode, maxNewTokens: number): Promise<string[]> {
  const out: string[] = [];
  for (const batch of chunks(images, 8)) {
    const { pixel_values } = await gen.processor(await Promise.all(batch.map(decode)));
    const ids = await gen.model.generate({ inputs: pixel_values, max_new_tokens: maxNewTokens });
    out.push(...gen.tokenizer.batch_decode(ids, { skip_special_tokens: true }).map((t: string) => t.trim()));
  }
  return out;
}

async function florence2(
  gen: Generator,
  images: Uint8Array[],
  decode: Decode,
  task: string,
  maxNewTokens: number,
): Promise<string[]> {
  if (!(FLORENCE_TEXT_TASKS as readonly string[]).includes(task)) {
    throw new DomainError('invalid_input', `Florence-2 text tasks are ${FLORENCE_TEXT_TASKS.join(', ')}; got ${task}`);
  }
  const out: string[] = [];
  for (const bytes of images) {
    const image = await decode(bytes);
    const inputs = await gen.processor(image, task);
    const ids = await gen.model.generate({ ...inputs, max_new_tokens: maxNewTokens });
    // Decode with special tokens kept: post-processing needs them (it strips <s>, </s> itself).
    const text = gen.processor.batch_decode(ids, { skip_special_tokens: false })[0];
    const result = gen.processor.post_process_generation(text, task, image.size);
    const answer = result[task];
    out.push(typeof answer === 'string' ? answer.trim() : JSON.stringify(answer));
  }
  return out;
}

async function smolvlm(
  gen: Generator,
  images: Uint8Array[],
  decode: Decode,
  prompt: string,
  maxNewTokens: number,
): Promise<string[]> {
  const out: string[] = [];
  for (const bytes of images) {
    const image = await decode(bytes);
    const messages = [{ role: 'user', content: [{ type: 'image' }, { type: 'text', text: prompt }] }];
    const text = gen.processor.apply_chat_template(messages, { add_generation_prompt: true });
    const inputs = await gen.processor(text, [image], { do_image_splitting: false });
    const ids = await gen.model.generate({ ...inputs, max_new_tokens: maxNewTokens });
    const promptLength = inputs.input_ids.dims.at(-1);
    const [answer] = gen.processor.batch_decode(ids.slice(null, [promptLength, null]), { skip_special_tokens: true });
    out.push(String(answer).trim());
  }
  return out;
}
