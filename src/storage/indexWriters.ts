import type { TextIndexWriter } from '../index/text/writer.js';
import type { VectorSync } from './sqlite/analysisStore.js';

/**
 * The one mechanism that keeps the search indexes in step with the stores: each relational store gets these
 * writers and calls them inside its own write transaction, at every write that changes what an index holds.
 */
export interface IndexWriters {
  /** The vector index: embeddings added, objects and items removed. */
  vectors: VectorSync;
  /** The text index: items, tags, frames, captions and OCR objects written (src/index/text/writer.ts). */
  text: TextIndexWriter;
}
