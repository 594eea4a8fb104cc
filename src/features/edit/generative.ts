/**
 * The hand-over for instructions the local editor cannot carry out ("add a
 * dragon"): when an image generation model is installed (`roles().generate`,
 * Janus-Pro-1B by default), it takes them.
 *
 * Honestly: Janus-Pro draws a new picture from text; it cannot change the
 * given photo pixel by pixel. So the hand-over describes the photo with the
 * local captioner, asks the generator for "<that description>. <the
 * instruction>" in the photo's aspect ratio, with the photo as a reference
 * image (its colours guide the result), and the answer says exactly that. The
 * operations the editor did understand in the same prompt are applied to the
 * generated picture afterwards. Without a generation model such prompts get
 * the 422 that lists what the local editor can do.
 */
import { readFile } from 'node:fs/promises';
import type { Principal, Services } from '../kernel/services.js';
import { DomainError } from '../../platform/errors.js';
import { generate, type GenerateDeps } from '../generate/index.js';
import { OUTPUT_URL_SEGMENT } from '../../files/tempOutputs.js';

/** Whether a generation model can take prompts the local editor does not understand. */
export function canGenerate(deps: Pick<Services, 'models' | 'generation'>): boolean {
  const name = deps.models.roles().generate;
  if (!name || !deps.generation) return false;
  try {
    return deps.models.modelInfo(name).installed;
  } catch {
    return false; // a role naming a model the catalog lacks
  }
}

export interface GeneratedEdit {
  /** PNG bytes of the generated picture, in the input's aspect ratio. */
  png: Buffer;
  model: string;
  /** What the generator was asked, for the answer. */
  prompt: string;
  description: string;
}

const MAX_PROMPT = 2000;

export async function generativeEdit(
  deps: GenerateDeps,
  principal: Principal,
  input: { image: Buffer; mimeType: string; instruction: string },
): Promise<GeneratedEdit> {
  let caption = '';
  try {
    caption = (await deps.models.caption([input.image]))[0]?.text.trim() ?? '';
  } catch {
    caption = ''; // no captioner: the instruction alone
  }
  const instruction = input.instruction.trim();
  const prompt = (caption ? `${caption.replace(/[.\s]+$/, '')}. ${instruction}` : instruction).slice(0, MAX_PROMPT);
  const reference = `data:${input.mimeType};base64,${input.image.toString('base64')}`;
  const out = await generate(
    deps,
    principal,
    { prompt, referenceImages: [reference], aspectRatio: 'match_input_image' },
    { async: false },
  );
  if (out.kind !== 'done') {
    throw new DomainError(
      'unavailable',
      `the generation is still running; its result will be at ${out.accepted.statusUrl}`,
    );
  }
  const key = out.answer.url.slice(out.answer.url.lastIndexOf('/') + 1);
  const file = await deps.outputs.pathOf(key);
  if (!file || !out.answer.url.includes(`/files/${OUTPUT_URL_SEGMENT}/`))
    throw new DomainError('unavailable', 'the generated image expired before it was read');
  return {
    png: await readFile(file),
    model: out.answer.model,
    prompt,
    description:
      `new picture drawn by ${out.answer.model} from "${prompt}", in the input's aspect ratio with its colours as guidance ` +
      '(the local generation model cannot change the photo itself)',
  };
}
