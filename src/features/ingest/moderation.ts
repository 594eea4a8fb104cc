import { zeroShotMany } from '../ai/index.js';
import type { Services } from '../kernel/services.js';

/**
 * Zero-shot moderation: each frame is scored against a few categories and a
 * "safe" counterpart; a category fires when it takes at least MIN_SHARE of the
 * softmax and matches the image in absolute terms (see MIN_SIMILARITY). `approved` when none fires on any frame, else `flagged` with the
 * categories that fired. A local embedder is not a safety classifier: this is
 * a first filter for a human, and the answer says which model judged.
 */
export const MODERATION_CATEGORIES: Record<string, string> = {
  nudity: 'nudity or sexual content',
  violence: 'violence or fighting',
  gore: 'blood and gore',
  weapons: 'guns or weapons',
  drugs: 'drugs or drug use',
  hate: 'hate symbols',
};
const SAFE = 'an ordinary safe everyday photo';
const MIN_SHARE = 0.5;
/**
 * A category must also match the image in absolute terms: a cosine similarity
 * this high (matching CLIP/SigLIP image-text pairs score well above it;
 * unrelated ones hover near zero) and clearly above the safe description.
 * Otherwise softmax would crown whichever label is least unrelated.
 */
const MIN_SIMILARITY = 0.12;
const MIN_MARGIN_OVER_SAFE = 0.02;

export interface Moderation {
  status: 'approved' | 'flagged';
  categories: string[];
  moderatedAt: string;
  model: string;
  source: 'model';
}

/** `frames`: each frame's bytes, or its vector under the default embedder when ingest has it already. */
export async function moderate(
  deps: Pick<Services, 'models'>,
  frames: Array<Buffer | Float32Array>,
): Promise<Moderation> {
  const labels = [SAFE, ...Object.values(MODERATION_CATEGORIES)];
  const fired = new Set<string>();
  for (const frame of frames) {
    const scores = await zeroShotMany(deps, frame, labels);
    const safe = scores.find((x) => x.label === SAFE)!;
    for (const [category, label] of Object.entries(MODERATION_CATEGORIES)) {
      const x = scores.find((y) => y.label === label)!;
      if (
        x.score >= MIN_SHARE &&
        x.similarity >= MIN_SIMILARITY &&
        x.similarity - safe.similarity >= MIN_MARGIN_OVER_SAFE
      )
        fired.add(category);
    }
  }
  return {
    status: fired.size ? 'flagged' : 'approved',
    categories: [...fired].sort(),
    moderatedAt: new Date().toISOString(),
    model: deps.models.modelInfo().id,
    source: 'model',
  };
}
