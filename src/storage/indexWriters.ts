import type { TextIndexWriter } from '../index/text/writer.js';
import type { VectorIndexWriter } from '../index/vector/types.js';

/**
 * The one mechanism that keeps the search indexes in step with the stores: each
 * relational store gets these writers and calls them inside its own write
 * transaction, at every write that changes what an index holds, so a write and
 * its index update commit or roll back together (src/storage/sqlite/index.ts
 * wires them).
 */
export interface IndexWriters {
  /** The vector index: object embeddings written, objects and items deleted. */
  vectors: VectorIndexWriter;
  /** The text index: items, tags, frames, captions and OCR objects written (src/index/text/writer.ts). */
  text: TextIndexWriter;
}
