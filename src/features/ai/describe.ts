import { loadAiImage, type AiRequestDeps } from './imageSource.js';

/** The Florence-2 task used when no free-form prompt is given: the issue asks for detailed captions. */
export const DESCRIBE_TASK = '<DETAILED_CAPTION>';

/**
 * POST /api/ai/describe. A free-form prompt goes to the prompt-following model
 * when one is installed; otherwise the captioner answers and the reply says
 * that the prompt could not be followed, and by which model it was answered.
 */
export async function describe(deps: AiRequestDeps, input: { image: string; prompt?: string }) {
  const image = await loadAiImage(deps, input.image);
  const prompt = input.prompt?.trim() || undefined;
  const promptModel = deps.models.roles().prompt;
  const canFollow = prompt !== undefined && promptModel !== null && deps.models.modelInfo(promptModel).installed;
  const [result] = canFollow
    ? await deps.models.caption([image.buffer], prompt)
    : await deps.models.caption([image.buffer], DESCRIBE_TASK);
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
                note:
                  'no prompt-following model is installed (npm run models -- fetch smolvlm-256m-instruct); ' +
                  "this is the captioner's description",
              }),
        }),
  };
}
