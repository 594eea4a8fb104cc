/**
 * The generations of the SQLite vector index: the registry (vector_indexes),
 * the tables of each generation, created here at run time because their dims
 * are only known then (layout: README.md), and the coarse lists they hold.
 */
import { invalid } from '../../../platform/errors.js';
import { vectorBytes, vectorFromBytes } from '../math.js';
import { genCodeMirror } from './codeMirror.js';
import { now, type Generation, type GenerationRow, type Lists, type VectorIndexState } from './state.js';
import { prepareGenerationStatements, prepareListStatements } from './statements.js';

/** Lists trained for a new generation. */
export interface TrainedLists {
  ds: string;
  sm: string;
  count: number;
  centroids: Float32Array;
  trainedRows: number;
}

/** A registry row's generation: what its tables are (with or without IVF lists) and their statements. */
function openGeneration(state: VectorIndexState, row: GenerationRow): Generation {
  const { db } = state;
  const table = `vec_index_${row.id}`;
  const ivf = state.sql.tableExists.get(`${table}_lists`) !== undefined;
  return {
    ivf,
    lists: new Map(),
    listSql: ivf ? prepareListStatements(db, table) : null,
    id: row.id,
    modelId: row.model_id,
    dims: row.dims,
    state: row.state,
    quantizer: row.quantizer,
    center: row.center ? vectorFromBytes(new Uint8Array(row.center)) : null,
    table,
    warm: 'no',
    warming: null,
    codes: genCodeMirror(db, table, row.dims, ivf, state.tuning.codeCacheBytes),
    sql: prepareGenerationStatements(db, table, ivf),
  };
}

/** Reads the registry again when it changed since the last read (its signature differs, or this index changed it). */
export function loadGenerations(state: VectorIndexState): void {
  const signature = state.sql.signature.get() as string;
  if (!state.dirty && signature === state.loadedSignature) return;
  const next = new Map<number, Generation>();
  for (const row of state.sql.registry.all() as GenerationRow[]) {
    const known = state.generations.get(row.id);
    if (known) known.state = row.state; // the only field that changes after creation
    next.set(row.id, known ?? openGeneration(state, row));
  }
  for (const id of state.generations.keys()) if (!next.has(id)) state.cache.dropGeneration(id);
  state.generations = next;
  state.loadedSignature = signature;
  state.dirty = false;
}

/** Every generation of a model (live and building). */
export function generationsOf(state: VectorIndexState, modelId: string): Generation[] {
  loadGenerations(state);
  return [...state.generations.values()].filter((gen) => gen.modelId === modelId);
}

/** The generation that answers queries: the live one, else one being built (partial). */
export function answeringGeneration(state: VectorIndexState, modelId: string): Generation | null {
  const list = generationsOf(state, modelId);
  return list.find((gen) => gen.state === 'live') ?? list.find((gen) => gen.state === 'building') ?? null;
}

/** A new generation's tables (always the IVF layout) and, in the same transaction, its lists. */
export function createGeneration(
  state: VectorIndexState,
  modelId: string,
  dims: number,
  center: Float32Array | null,
  genState: 'live' | 'building',
  lists: TrainedLists[] = [],
): Generation {
  if (dims <= 0 || dims % 8 !== 0) throw invalid(`vector index: dims must be a positive multiple of 8 (got ${dims})`);
  const at = now();
  const id = Number(
    state.sql.insertGeneration.run(
      modelId,
      dims,
      center ? Buffer.from(vectorBytes(center)) : null,
      genState,
      at,
      genState === 'live' ? at : null,
    ).lastInsertRowid,
  );
  const table = `vec_index_${id}`;
  state.db.exec(generationDdl(table, dims));
  const insList = state.db.prepare(
    `INSERT INTO ${table}_lists (dataset_id, similarity_model, list, centroid, rows, trained_rows) VALUES (?, ?, ?, ?, 0, ?)`,
  );
  for (const trained of lists) {
    for (let j = 0; j < trained.count; j++)
      insList.run(
        trained.ds,
        trained.sm,
        BigInt(j),
        Buffer.from(vectorBytes(trained.centroids.subarray(j * dims, (j + 1) * dims))),
        trained.trainedRows,
      );
  }
  state.dirty = true;
  loadGenerations(state);
  return state.generations.get(id)!;
}

/** The tables of a generation (README.md explains each). */
function generationDdl(table: string, dims: number): string {
  const vec0Columns = `dataset_id text partition key, similarity_model text partition key, list integer partition key,
        embedding bit[${dims}]`;
  return `
      CREATE VIRTUAL TABLE ${table} USING vec0(${vec0Columns});
      CREATE VIRTUAL TABLE ${table}_sample USING vec0(${vec0Columns});
      CREATE TABLE ${table}_items (
        id               INTEGER PRIMARY KEY AUTOINCREMENT, -- the vec0 rowid; never reused (the cache trusts it)
        object_id        TEXT NOT NULL UNIQUE,
        media_id         TEXT NOT NULL,
        frame_id         TEXT,
        dataset_id       TEXT NOT NULL,
        similarity_model TEXT NOT NULL,
        list             INTEGER NOT NULL DEFAULT 0 -- its coarse list (the vec0 partition key)
      );
      CREATE INDEX ${table}_items_media ON ${table}_items(media_id, similarity_model, dataset_id);
      CREATE INDEX ${table}_items_dataset ON ${table}_items(dataset_id, similarity_model);
      CREATE TABLE ${table}_f32 (id INTEGER PRIMARY KEY, vector BLOB NOT NULL); -- float32 LE, unit length
      CREATE TABLE ${table}_q8 (id INTEGER PRIMARY KEY, q BLOB NOT NULL); -- float32 scale, then int8 × dims
      CREATE TABLE ${table}_lists (
        dataset_id       TEXT NOT NULL,
        similarity_model TEXT NOT NULL,
        list             INTEGER NOT NULL,
        centroid         BLOB NOT NULL,    -- float32 LE, unit length
        rows             INTEGER NOT NULL, -- live rows in the list
        trained_rows     INTEGER NOT NULL, -- the collection's rows when the lists were trained
        PRIMARY KEY (dataset_id, similarity_model, list)
      ) WITHOUT ROWID;
    `;
}

/** Drops a generation's tables, its registry rows and its cached int8 copies. */
export function dropGeneration(state: VectorIndexState, gen: Generation): void {
  const t = gen.table;
  state.db.exec(
    ['', '_sample', '_items', '_f32', '_q8', '_lists'].map((suffix) => `DROP TABLE IF EXISTS ${t}${suffix};`).join(' '),
  );
  state.db.prepare(`DELETE FROM vector_index_partitions WHERE index_id = ?`).run(gen.id);
  state.db.prepare(`DELETE FROM vector_indexes WHERE id = ?`).run(gen.id);
  state.cache.dropGeneration(gen.id);
  state.dirty = true;
}

/** The coarse lists of a collection and similarity model in a generation (null: none: one scan of the partition). */
export function listsOf(gen: Generation, ds: string, sm: string): Lists | null {
  if (!gen.listSql) return null;
  const key = `${ds}\u0000${sm}`;
  let lists = gen.lists.get(key);
  if (lists === undefined) {
    const rows = gen.listSql.centroids.all(ds, sm) as Array<{ list: number; centroid: Buffer; trainedRows: number }>;
    if (rows.length === 0) lists = null;
    else {
      const centroids = new Float32Array(rows.length * gen.dims);
      rows.forEach((row, j) => centroids.set(vectorFromBytes(new Uint8Array(row.centroid)), j * gen.dims));
      lists = { count: rows.length, centroids, trainedRows: rows[0].trainedRows };
    }
    gen.lists.set(key, lists);
  }
  return lists;
}
