/**
 * Checks of a VisionModels call's inputs, made on the main thread before
 * anything queues, and the choice of model and prompt for a caption.
 */
import { DomainError } from '../../platform/errors.js';
import type { ModelEntry } from '../catalog.js';
import { FLORENCE_TEXT_TASKS } from '../tasks.js';
import type { ModelDirectory } from './directory.js';

/** Most images or texts accepted in one call. */
export const MAX_INPUTS = 256;
export const MAX_TEXT_CHARS = 2000;

/** How a Florence-2 task reads as a prompt for a chat model. */
const TASK_AS_PROMPT: Record<string, string> = {
  '<CAPTION>': 'Describe this image in one sentence.',
  '<DETAILED_CAPTION>': 'Describe this image in detail.',
  '<MORE_DETAILED_CAPTION>': 'Describe this image in as much detail as you can.',
  '<OCR>': 'Write down all the text in this image.',
};
const isTask = (prompt: string) => (FLORENCE_TEXT_TASKS as readonly string[]).includes(prompt);

export function checkList<T>(items: T[], what: string): void {
  if (!Array.isArray(items) || items.length === 0) throw new DomainError('invalid_input', `no ${what} given`);
  if (items.length > MAX_INPUTS) throw new DomainError('invalid_input', `at most ${MAX_INPUTS} ${what} per call`);
}

export function checkImages(images: Buffer[]): void {
  checkList(images, 'images');
  if (images.some((bytes) => !(bytes instanceof Uint8Array) || bytes.length === 0))
    throw new DomainError('invalid_input', 'images must be non-empty encoded image bytes');
}

export function checkTexts(texts: string[]): void {
  checkList(texts, 'texts');
  if (texts.some((text) => typeof text !== 'string' || text.length > MAX_TEXT_CHARS))
    throw new DomainError('invalid_input', `texts must be strings of at most ${MAX_TEXT_CHARS} characters`);
}

/** Picks the model and the prompt it receives for a caption request. */
export function captionPlan(
  directory: ModelDirectory,
  prompt: string | undefined,
  model: string | undefined,
): { entry: ModelEntry; prompt?: string } {
  const trimmed = prompt?.trim() || undefined;
  const freeForm = trimmed !== undefined && !isTask(trimmed);
  const name = model ?? (freeForm ? directory.roles.prompt : directory.roles.caption);
  if (!name) {
    throw new DomainError(
      'unavailable',
      freeForm ? 'no prompt-following model is configured for free-form prompts' : 'no caption model is configured',
    );
  }
  const entry = directory.usable(name, ['caption', 'prompt']);
  switch (entry.arch) {
    case 'vit-gpt2':
      if (freeForm)
        throw new DomainError('invalid_input', `model ${name} writes plain captions and cannot follow a prompt`);
      return { entry }; // task tokens all mean "a caption" to it
    case 'florence2':
      if (freeForm)
        throw new DomainError('invalid_input', `model ${name} takes only ${FLORENCE_TEXT_TASKS.join(', ')}`);
      return { entry, prompt: trimmed };
    default:
      return {
        entry,
        prompt: trimmed === undefined ? TASK_AS_PROMPT['<DETAILED_CAPTION>'] : (TASK_AS_PROMPT[trimmed] ?? trimmed),
      };
  }
}
