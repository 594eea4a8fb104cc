import type { TextIndex } from './text/textIndex.js';
import type { VectorIndex } from './vector/types.js';

/**
 * The search indexes the composition root (src/app.ts) hands to the features
 * beside the stores: they are kept in step with the stores by the index
 * writers the stores call inside their transactions (src/storage/indexWriters.ts).
 */
export interface SearchIndexes {
  /** Vector similarity search over object embeddings (src/index/vector). */
  vectors: VectorIndex;
  /** Full-text search over captions, OCR text, names, descriptions and tags. */
  text: TextIndex;
}
