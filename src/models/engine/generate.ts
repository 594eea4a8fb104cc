/**
 * Text-to-image with Janus-Pro through transformers.js, as its authors use it:
 * `AutoProcessor` (VLChatProcessor, `text_to_image` chat template) and
 * `MultiModalityCausalLM.generate_images` with classifier-free guidance from
 * generation_config.json, sampling one image token at a time through the key/value
 * cache, then the VQ decoder. Runs in the dedicated generation worker (never the
 * shared model worker), one image at a time.
 *
 * Determinism: transformers.js samples with its global Mersenne Twister
 * (`random`), which we seed right before each generation. Only one generation
 * runs in this worker at a time, so nothing else draws from it in between:
 * the same prompt and seed give the same image.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { AutoProcessor, MultiModalityCausalLM, random } from '@huggingface/transformers';
import sharp from 'sharp';
import { DomainError } from '../../platform/errors.js';
import { ARCH_INFO, DTYPE_SUFFIX, type Dtype, type ModelEntry } from '../catalog.js';
import type { EngineContext } from './context.js';
import type { Loaded } from './registry.js';
import { SESSION_OPTIONS } from './sessionOptions.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
interface ImageGenerator {
  model: Any;
  processor: Any;
}

/** Longest prompt passed to the model (characters); longer ones are cut. */
export const MAX_PROMPT_CHARS = 2000;

/** The dtype of every part: the entry's per-part overrides on top of its dtype (stand-ins: fp32 throughout). */
function partDtypes(ctx: EngineContext, entry: ModelEntry): Record<string, Dtype> {
  const base = ctx.dtype(entry);
  const overrides = base === entry.dtype ? (entry.partDtypes ?? {}) : {};
  return Object.fromEntries(ARCH_INFO[entry.arch].parts.map((p) => [p, overrides[p] ?? base]));
}

function bytesOf(ctx: EngineContext, entry: ModelEntry, dtypes: Record<string, Dtype>): number {
  let total = 0;
  for (const [part, dtype] of Object.entries(dtypes)) {
    const base = path.join(ctx.folder(entry), 'onnx', `${part}${DTYPE_SUFFIX[dtype]}.onnx`);
    for (const file of [base, base + '_data']) {
      try {
        total += statSync(file).size;
      } catch {
        // external data files are optional
      }
    }
  }
  return total;
}

async function load(ctx: EngineContext, entry: ModelEntry): Promise<Loaded<ImageGenerator>> {
  const id = ctx.modelId(entry);
  const dtype = partDtypes(ctx, entry);
  const processor = await AutoProcessor.from_pretrained(id);
  const { value: model, device } = await ctx.devices.load(entry.name, (device) =>
    MultiModalityCausalLM.from_pretrained(id, { dtype, device, session_options: SESSION_OPTIONS }),
  );
  return { value: { model, processor }, device, bytes: bytesOf(ctx, entry, dtype), dispose: () => model.dispose() };
}

/**
 * One square image for a prompt, as PNG bytes (a fresh buffer, transferable:
 * the pool answers one output per input). `progress` gets image tokens done / total.
 */
export async function generateImage(
  ctx: EngineContext,
  entry: ModelEntry,
  prompt: string,
  seed: number,
  progress: (done: number, total: number) => void,
): Promise<Uint8Array[]> {
  if (entry.task !== 'generate') throw new DomainError('invalid_input', `model ${entry.name} does not generate images`);
  return ctx.registry.use(
    entry.name,
    'generate',
    () => load(ctx, entry),
    async (gen) => {
      const total: number = gen.processor.num_image_tokens;
      const conversation = [{ role: '<|User|>', content: prompt.slice(0, MAX_PROMPT_CHARS) }];
      const inputs = await gen.processor(conversation, { chat_template: 'text_to_image' });
      // A streamer is told the prompt first, then every new token: count the tokens for progress.
      let done = -1;
      let lastReport = 0;
      const streamer = {
        put() {
          done++;
          const now = Date.now();
          if (done > 0 && (now - lastReport >= 250 || done >= total)) {
            lastReport = now;
            progress(done, total);
          }
        },
        end() {},
      };
      random.seed(seed);
      const [image] = await gen.model.generate_images({
        ...inputs,
        min_new_tokens: total,
        max_new_tokens: total,
        do_sample: true,
        streamer,
      });
      const png = await sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), {
        raw: { width: image.width, height: image.height, channels: image.channels },
      })
        .png()
        .toBuffer();
      return [new Uint8Array(png)];
    },
  );
}
