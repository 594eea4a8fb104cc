/**
 * The vector index on sqlite-vec 0.1.9: builds the state (state.ts) and wires
 * the functions that do each job to the VectorIndex interface. The table
 * layout and sqlite-vec's quirks are in README.md beside this file.
 */
import type Database from 'better-sqlite3';
import type { VectorHit, VectorIndex, VectorIndexWriter, VectorQuery, VectorRow, VectorSearchInfo } from '../types.js';
import { dropGeneration, generationsOf } from './registry.js';
import { rebuild } from './rebuild.js';
import { coverage, statsAll, unindexedModels } from './report.js';
import { searchWithInfo } from './search.js';
import { createVectorIndexState } from './state.js';
import type { VectorIndexTuning } from './tuning.js';
import { warmAll } from './warm.js';
import { removeRows, upsertRows } from './write.js';

export type { VectorIndexTuning } from './tuning.js';

/** The SQLite vector index plus synchronous writers for use inside another store's transaction. */
export interface SqliteVectorIndex extends VectorIndex {
  /** The same writes, synchronous: call them inside the transaction that writes object_embeddings. */
  sync: VectorIndexWriter;
  /** search, synchronous, with how it ran (benchmarks, tests). */
  searchWithInfo(query: VectorQuery): { hits: VectorHit[]; info: VectorSearchInfo };
  /** Memory held by the int8 cache. */
  cacheSize(): { bytes: number; slabs: number };
}

export function sqliteVectorIndex(db: Database.Database, tuning: VectorIndexTuning = {}): SqliteVectorIndex {
  const state = createVectorIndexState(db, tuning);
  // Each write is one transaction (a SAVEPOINT inside the caller's).
  const upsertTx = db.transaction((rows: VectorRow[]) => upsertRows(state, rows));
  const removeTx = db.transaction((objectIds: string[]) => removeRows(state, 'objects', objectIds));
  const removeMediaTx = db.transaction((mediaIds: string[]) => removeRows(state, 'media', mediaIds));
  const sync: VectorIndexWriter = {
    upsert: (rows) => {
      if (rows.length) upsertTx(rows);
    },
    remove: (ids) => {
      if (ids.length) removeTx(ids);
    },
    removeMedia: (ids) => {
      if (ids.length) removeMediaTx(ids);
    },
  };
  return {
    sync,
    searchWithInfo: (query) => searchWithInfo(state, query),
    search: async (query) => searchWithInfo(state, query).hits,
    upsert: async (rows) => sync.upsert(rows),
    remove: async (ids) => sync.remove(ids),
    removeMedia: async (ids) => sync.removeMedia(ids),
    rebuild: (modelId, options) => rebuild(state, modelId, options),
    coverage: async (modelId, collectionIds, sm) => coverage(state, modelId, collectionIds, sm),
    stats: async (modelId) => statsAll(state, modelId),
    dropModel: async (modelId) => {
      db.transaction(() => {
        for (const gen of generationsOf(state, modelId)) dropGeneration(state, gen);
      })();
    },
    warm: (modelId) => warmAll(state, modelId),
    unindexedModels: async () => unindexedModels(state),
    cacheSize: () => state.cache.size,
  };
}
