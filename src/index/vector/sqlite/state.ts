/**
 * The state of one SQLite vector index, passed explicitly to the functions
 * that do its jobs (registry.ts, write.ts, plan.ts, firstPass.ts, rerank.ts,
 * search.ts, rebuild.ts, warm.ts, report.ts): the connection, the tuning, the
 * int8 cache, the prepared statements and the generations read from the
 * registry. sqliteVectorIndex.ts builds it and wires the jobs to the
 * VectorIndex interface.
 */
import type Database from 'better-sqlite3';
import { Int8Cache } from '../int8Cache.js';
import type { GenCodeMirror } from './codeMirror.js';
import {
  prepareIndexStatements,
  type GenerationStatements,
  type IndexStatements,
  type ListStatements,
} from './statements.js';
import { resolveTuning, type ResolvedTuning, type VectorIndexTuning } from './tuning.js';

type Db = Database.Database;

/** A row of the registry table vector_indexes. */
export interface GenerationRow {
  id: number;
  model_id: string;
  dims: number;
  quantizer: string;
  center: Buffer | null;
  state: 'live' | 'building';
  deleted_rows: number;
}

/** The coarse lists of one collection and similarity model: `count` unit centroids, row-major. */
export interface Lists {
  count: number;
  centroids: Float32Array;
  trainedRows: number;
}

/**
 * One generation of one embedding model's index: its tables (vec_index_<id>*,
 * see README.md), what is known of them, and their prepared statements.
 */
export interface Generation {
  id: number;
  modelId: string;
  dims: number;
  state: 'live' | 'building';
  center: Float32Array | null;
  quantizer: string;
  table: string;
  warm: 'no' | 'running' | 'done';
  /** The warm-up under way (warm() called meanwhile waits for it). */
  warming: Promise<number> | null;
  /** Made since IVF: `list` partition key and column, a _lists table. */
  ivf: boolean;
  /** Lists by collection and similarity model (null: none), read once: they never change in a generation. */
  lists: Map<string, Lists | null>;
  /** The in-memory copy of its codes (the first pass runs there once loaded). */
  codes: GenCodeMirror;
  sql: GenerationStatements;
  /** IVF generations only. */
  listSql: ListStatements | null;
}

/** An indexed row as the write path finds it in _items. */
export interface ItemRef {
  rowid: number;
  dataset_id: string;
  similarity_model: string;
  /** Its coarse list (0 in a collection without lists and in generations from before IVF). */
  list: number;
}

export interface VectorIndexState {
  db: Db;
  tuning: ResolvedTuning;
  cache: Int8Cache;
  sql: IndexStatements;
  /**
   * The generations, cached; reloaded when the registry changed (by this
   * index, another one on the same connection, or another connection): see
   * loadGenerations in registry.ts.
   */
  generations: Map<number, Generation>;
  loadedSignature: string | null;
  /** Set by this index's own registry changes: the next load reads the registry whatever its signature. */
  dirty: boolean;
}

export function createVectorIndexState(db: Db, tuning: VectorIndexTuning): VectorIndexState {
  const resolved = resolveTuning(tuning);
  return {
    db,
    tuning: resolved,
    cache: new Int8Cache(resolved.cacheBytes),
    sql: prepareIndexStatements(db),
    generations: new Map(),
    loadedSignature: null,
    dirty: true,
  };
}

export const now = () => new Date().toISOString();
