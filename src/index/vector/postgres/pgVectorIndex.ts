import type { PgDb } from '../../../platform/pgDb.js';
import { notImplemented } from '../../../platform/notImplemented.js';
import type { VectorIndex } from '../types.js';

/** The vector index on pgvector (HNSW); with `enabled` false (VECTOR_SEARCH=off) it holds nothing and finds nothing. */
export function pgVectorIndex(db: PgDb, options: { enabled: boolean }): VectorIndex {
  void db;
  void options;
  return notImplemented<VectorIndex>('vectors');
}
