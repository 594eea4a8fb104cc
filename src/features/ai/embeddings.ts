import { invalid } from '../../platform/errors.js';
import type { Services } from '../kernel/services.js';
import { loadAiImage, type AiRequestDeps } from './imageSource.js';

/** Resolves a model name for embedding (400 for unknown names or non-embedders). */
export function embeddingModel(deps: Pick<Services, 'models'>, name: string | undefined) {
  const info = deps.models.modelInfo(!name || name === 'default' ? undefined : name);
  if (info.task !== 'embed') throw invalid(`model "${name}" is not an embedding model`);
  return info;
}

const round = (v: Float32Array) => Array.from(v);

/** Shape 1: `{image, model?}` → `{embedding, dimensions, model}`. */
export async function embedImage(deps: AiRequestDeps, input: { image: string; model?: string }) {
  const info = embeddingModel(deps, input.model);
  const image = await loadAiImage(deps, input.image);
  const [vector] = await deps.models.embedImages(info.name, [image.buffer]);
  return { embedding: round(vector), dimensions: vector.length, model: info.name, modelId: info.id };
}

export async function embedText(deps: Pick<Services, 'models'>, input: { text: string; model?: string }) {
  const info = embeddingModel(deps, input.model);
  const text = input.text.trim();
  if (!text) throw invalid('text must not be empty');
  const [vector] = await deps.models.embedTexts(info.name, [text]);
  return { embedding: round(vector), dimensions: vector.length, model: info.name, modelId: info.id };
}

/** Shape 2's auto-detection: URLs and data URIs are images, anything else is text. */
export function looksLikeImage(input: string): boolean {
  return /^(https?:\/\/|data:image\/)/i.test(input.trim());
}
