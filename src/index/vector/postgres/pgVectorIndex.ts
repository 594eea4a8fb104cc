/**
 * The vector index on pgvector: entries kept in step with object_embeddings by the vector migration's
 * triggers, one HNSW index (halfvec, cosine) per embedding model, searched with iterative scans and an
 * exact fallback. How and why: README.md beside this file.
 */
import type { PgDb } from '../../../platform/pgDb.js';
import type { VectorHit, VectorIndex, VectorQuery } from '../types.js';
import { rebuild } from './rebuild.js';
import { coverage, statsAll, unindexedModels, warm } from './report.js';
import { searchWithInfo, type PgSearchInfo } from './search.js';
import { DEFAULT_PG_TUNING, type PgVectorTuning } from './tuning.js';
import { dropModel, removeRows, upsertRows } from './write.js';

export type { PgSearchInfo } from './search.js';
export type { PgVectorTuning } from './tuning.js';

/** The pgvector index, plus search with how it ran (tests, benchmarks). */
export interface PgVectorIndex extends VectorIndex {
  searchWithInfo(query: VectorQuery): Promise<{ hits: VectorHit[]; info: PgSearchInfo }>;
}

export interface PgVectorIndexOptions {
  /** False (VECTOR_SEARCH=off, a server without pgvector): nothing is indexed, searches find nothing. */
  enabled: boolean;
  tuning?: PgVectorTuning;
}

const EMPTY_INFO: PgSearchInfo = { strategy: 'empty', allowed: null, fellBack: false };

/**
 * The vector index on pgvector (HNSW); with `enabled` false (VECTOR_SEARCH=off) it holds nothing and finds
 * nothing, while the relational stores still keep every embedding in object_embeddings (a later start with
 * vector search on indexes them: unindexedModels, then rebuild).
 */
export function pgVectorIndex(db: PgDb, options: PgVectorIndexOptions): PgVectorIndex {
  const tuning = { ...DEFAULT_PG_TUNING, ...options.tuning };
  if (!options.enabled) return disabledIndex(db);
  return {
    searchWithInfo: (query) => searchWithInfo(db, tuning, query),
    search: async (query) => (await searchWithInfo(db, tuning, query)).hits,
    upsert: (rows) => upsertRows(db, rows),
    remove: (ids) => removeRows(db, 'objects', ids),
    removeMedia: (ids) => removeRows(db, 'media', ids),
    rebuild: (modelId, rebuildOptions) => rebuild(db, modelId, rebuildOptions),
    coverage: (modelId, collectionIds, sm) => coverage(db, true, modelId, collectionIds, sm),
    stats: (modelId) => statsAll(db, modelId),
    dropModel: (modelId) => dropModel(db, modelId),
    warm: (modelId) => warm(db, modelId),
    unindexedModels: () => unindexedModels(db),
  };
}

/** Vector search off: the vector tables do not exist; only coverage reads (the relational tables). */
function disabledIndex(db: PgDb): PgVectorIndex {
  return {
    searchWithInfo: async () => ({ hits: [], info: EMPTY_INFO }),
    search: async () => [],
    upsert: async () => {},
    remove: async () => {},
    removeMedia: async () => {},
    rebuild: async () => ({ rows: 0 }),
    coverage: (modelId, collectionIds, sm) => coverage(db, false, modelId, collectionIds, sm),
    stats: async () => [],
    dropModel: async () => {},
    warm: async () => ({ rows: 0 }),
    unindexedModels: async () => [],
  };
}
