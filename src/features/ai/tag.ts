import { invalid } from '../../platform/errors.js';
import { DESCRIBE_TASK } from './describe.js';
import { loadAiImage, type AiRequestDeps } from './imageSource.js';
import { captionTerms, vocabulary } from './vocabulary.js';
import { zeroShotMany } from './zeroShot.js';

/** Tags without choices: at most this many, each with at least this zero-shot probability. */
const MAX_TAGS = 15;
const MIN_TAG_CONFIDENCE = 0.01;

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * Shape 1 without choices: zero-shot scoring of the image against the
 * built-in vocabulary plus the terms of its caption. Confidence is the
 * label's share of a softmax over all candidates (CLIP's convention), so it
 * reads as "how much more this than the alternatives", not an independent
 * probability; tags below 1% are dropped.
 */
export async function tagFree(deps: AiRequestDeps, input: { image: string; prompt?: string }) {
  const image = await loadAiImage(deps, input.image);
  let terms: string[] = [];
  let captionModel: string | undefined;
  if (deps.models.roles().caption) {
    const [caption] = await deps.models.caption([image.buffer], DESCRIBE_TASK);
    terms = captionTerms(caption.text);
    captionModel = caption.model;
  }
  const labels = [...new Set([...vocabulary(), ...terms])];
  const scores = await zeroShotMany(deps, image.buffer, labels);
  const tags = scores
    .filter((x) => x.score >= MIN_TAG_CONFIDENCE)
    .slice(0, MAX_TAGS)
    .map((x) => ({ tag: x.label, confidence: round4(x.score) }));
  // Ours (beyond the spec's `tags`): the model that scored them, and the captioner whose words were candidates.
  return { tags, model: deps.models.modelInfo().name, ...(captionModel ? { captionModel } : {}) };
}

/** Shape 1 with choices: zero-shot classification over the client's choices. */
export async function classify(deps: AiRequestDeps, input: { image: string; choices: string[]; single?: boolean }) {
  const choices = cleanList(input.choices, 'choices');
  const image = await loadAiImage(deps, input.image);
  const scores = await zeroShotMany(deps, image.buffer, choices);
  const best = scores[0];
  const all = input.single ? [best] : scores;
  return {
    classification: best.label,
    confidence: round4(best.score),
    all_scores: all.map((x) => ({ choice: x.label, score: round4(x.score) })),
    model: deps.models.modelInfo().name, // ours: the model that scored the choices
  };
}

/**
 * Shape 2 (`prompt` + `options` + `multiple`). Answered by the
 * prompt-following model when one is installed; otherwise by zero-shot over
 * the options (or over the vocabulary when there are none). `raw` says which
 * model and method answered, with what it produced.
 */
export async function tagWithPrompt(
  deps: AiRequestDeps,
  input: { image: string; prompt: string; options?: string[]; multiple?: boolean },
) {
  const multiple = input.multiple ?? true;
  const options = input.options ? cleanList(input.options, 'options') : null;
  const image = await loadAiImage(deps, input.image);
  const promptModel = deps.models.roles().prompt;
  if (promptModel && deps.models.modelInfo(promptModel).installed) {
    const question = [
      input.prompt.trim(),
      options
        ? `Answer only with ${multiple ? 'the matching values' : 'the single best value'} from this list: ${options.join(', ')}.`
        : 'Answer with short comma-separated tags.',
    ].join('\n');
    const [answer] = await deps.models.caption([image.buffer], question);
    const said = answer.text
      .split(/[,\n;]+/)
      .map((t) => t.trim().replace(/^[-*•\d.\s]+/, ''))
      .filter(Boolean);
    let tags = options ? options.filter((o) => said.some((t) => t.toLowerCase().includes(o.toLowerCase()))) : said;
    if (!multiple) tags = tags.slice(0, 1);
    return { tags, raw: { model: answer.model, method: 'prompt', text: answer.text } };
  }
  if (!options) {
    const free = await tagFree(deps, { image: input.image });
    const tags = free.tags.filter((t) => t.confidence >= 0.05).map((t) => t.tag);
    return {
      tags: multiple ? tags : tags.slice(0, 1),
      raw: {
        model: deps.models.modelInfo().name,
        method: 'zero-shot-vocabulary',
        note: 'no prompt-following model installed; the prompt was not used',
        scores: free.tags,
      },
    };
  }
  const scores = await zeroShotMany(deps, image.buffer, options);
  // Several options can apply: keep those close to the best one (within half its score).
  const picked = multiple ? scores.filter((x) => x.score >= scores[0].score / 2) : [scores[0]];
  return {
    tags: picked.map((x) => x.label),
    raw: {
      model: deps.models.modelInfo().name,
      method: 'zero-shot',
      note: 'no prompt-following model installed; options were scored against the image',
      scores: scores.map((x) => ({ option: x.label, score: round4(x.score) })),
    },
  };
}

function cleanList(values: string[], field: string): string[] {
  const list = [...new Set(values.map((v) => v.trim()).filter(Boolean))];
  if (list.length === 0) throw invalid(`${field} must hold at least one non-empty string`);
  if (list.length > 500) throw invalid(`${field} may hold at most 500 values`);
  return list;
}
