import type { Services } from '../kernel/services.js';
import { loadAiImage } from './imageSource.js';

/** The Florence-2 task used when no free-form prompt is given: the issue asks for detailed captions. */
export const DESCRIBE_TASK = '<DETAILED_CAPTION>';

/**
 * POST /api/ai/describe. A free-form prompt goes to the prompt-following model
 * when one is installed; otherwise the captioner answers and the reply says
 * that the prompt could not be followed, and by which model it was answered.
 */
export async function describe(s: Services, input: { image: string; prompt?: string }) {
  const image = await loadAiImage(s, input.image);
  const prompt = input.prompt?.trim() || undefined;
  const promptModel = s.models.roles().prompt;
  const canFollow = prompt !== undefined && promptModel !== null && s.models.modelInfo(promptModel).installed;
  const [result] = canFollow
    ? await s.models.caption([image.buffer], prompt)
    : await s.models.caption([image.buffer], DESCRIBE_TASK);
  return {
    description: result.text,
    model: result.model,
    ...(prompt === undefined
      ? {}
      : {
          promptFollowed: canFollow,
          ...(canFollow
            ? {}
            : {
                note: "no prompt-following model is installed (npm run models -- fetch smolvlm-256m-instruct); this is the captioner's description",
              }),
        }),
  };
}
