import type { Services } from '../kernel/services.js';

/** CLIP's logit scale: softmax over 100 × cosine similarity. */
const LOGIT_SCALE = 100;
const TEMPLATE = 'a photo of {}';
const BATCH = 128;
const CACHE_LIMIT = 20_000;

/** Text embeddings of labels, per model id: the vocabulary is embedded once, not on every request. */
const labelCache = new Map<string, Float32Array>();

async function labelVectors(
  deps: Pick<Services, 'models'>,
  model: string,
  modelId: string,
  labels: string[],
): Promise<Float32Array[]> {
  const missing = [...new Set(labels.filter((l) => !labelCache.has(`${modelId}\u0000${l}`)))];
  for (let i = 0; i < missing.length; i += BATCH) {
    const chunk = missing.slice(i, i + BATCH);
    const vectors = await deps.models.embedTexts(
      model,
      chunk.map((l) => TEMPLATE.replace('{}', l)),
    );
    if (labelCache.size + chunk.length > CACHE_LIMIT) labelCache.clear();
    chunk.forEach((l, j) => labelCache.set(`${modelId}\u0000${l}`, vectors[j]));
  }
  return labels.map((l) => labelCache.get(`${modelId}\u0000${l}`)!);
}

export interface LabelScore {
  label: string;
  score: number;
  similarity: number;
}

/**
 * Zero-shot scores of an image against any number of labels, best first:
 * one image embedding, cached label embeddings, softmax over all labels.
 * (The runner's own zeroShot caps a call at 256 labels and embeds them every time.)
 */
export async function zeroShotMany(
  deps: Pick<Services, 'models'>,
  image: Buffer | Float32Array,
  labels: string[],
  modelName?: string,
): Promise<LabelScore[]> {
  const info = deps.models.modelInfo(modelName);
  // A vector is the image already embedded by this model (ingest passes the frame's stored vector).
  const imageVector = image instanceof Float32Array ? image : (await deps.models.embedImages(info.name, [image]))[0];
  const vectors = await labelVectors(deps, info.name, info.id, labels);
  const sims = vectors.map((v) => {
    let d = 0;
    for (let i = 0; i < v.length; i++) d += v[i] * imageVector[i];
    return d;
  });
  const max = Math.max(...sims);
  const exps = sims.map((x) => Math.exp(LOGIT_SCALE * (x - max)));
  const total = exps.reduce((a, b) => a + b, 0);
  return labels
    .map((label, i) => ({ label, score: exps[i] / total, similarity: sims[i] }))
    .sort((a, b) => b.score - a.score || a.label.localeCompare(b.label));
}
