/**
 * Public API of the AI feature for the other features (a feature imports another only through its
 * index.ts): loading a request's image (SSRF-safe), zero-shot scoring and the tagging vocabulary.
 */
export {
  ANALYSIS_FORMATS,
  EDIT_FORMATS,
  loadAiImage,
  type AiRequestDeps,
  type ImageSourceDeps,
} from './imageSource.js';
export type { ImageFormat, LoadedImage } from './imageInput.js';
export { captionTerms, vocabulary } from './vocabulary.js';
export { zeroShotMany, type LabelScore } from './zeroShot.js';
