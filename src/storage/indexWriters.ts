import type { VectorIndexWriter } from '../index/vector/types.js';

/**
 * How the stores keep the search indexes in step: each member is called
 * inside the store's write transaction, so a write and its index update
 * commit or roll back together. The stores that change indexed rows receive
 * this (src/storage/sqlite/index.ts wires it).
 */
export interface IndexWriters {
  /** The vector index's synchronous writes: object embeddings written, objects and items deleted. */
  vectors: VectorIndexWriter;
}
