/**
 * The vector index on sqlite-vec 0.1.9 (the query model is in
 * src/search/vectorIndex.ts; the registry in migrations/004_vector_index.sql).
 *
 * Per embedding model, one generation = four tables created here on first use
 * (dims are only known then):
 *   vec_index_<id>         vec0 of 1-bit codes, partitioned by (dataset_id,
 *                          similarity_model): a query reads only the chunks of its
 *                          collections and similarity model. similarity_model is a
 *                          partition key rather than a metadata column because
 *                          vec0 0.1.9 reads and compares a metadata column for
 *                          every row scanned: at 1M rows that cost 30–50% more
 *                          than the scan itself (measured), where a partition key
 *                          skips the other chunks outright (a faces query then
 *                          reads only face chunks)
 *   vec_index_<id>_sample  the same for the rows whose rowid hashes into 1/64:
 *                          a KNN over it gives, for this query, the Hamming
 *                          distance under which about the wanted number of rows
 *                          of the full table lie; the full scan then runs with
 *                          `distance <= bound`. That matters: vec0 0.1.9 selects
 *                          each chunk's top k by k passes over the chunk, so a
 *                          KNN costs rows × k (k = 320 over 100k codes took 8× the
 *                          k = 10 time here); with the bound only a few rows per
 *                          chunk compete and the cost falls back to a plain scan.
 *   vec_index_<id>_items   rowid → object, item, frame, collection (slim rows: the
 *                          ids of k hits are k lookups, better on few hot pages)
 *   vec_index_<id>_f32     rowid → float32 vector, for the exact rescoring of the best
 *                          (a copy of object_embeddings.vector: one page a row here,
 *                          where that WITHOUT ROWID table spills 3 KB rows to overflow
 *                          pages and a point read cost 4.5× as much)
 *   vec_index_<id>_q8      rowid → int8 copy, loaded into the in-memory cache
 *   vec_index_<id>_lists   coarse lists (IVF, src/search/ivf.ts) of the big collections:
 *                          per (collection, similarity model, list) its centroid, live
 *                          rows and the rows it was trained on. Generations made since
 *                          IVF have a third partition key, `list`, in both vec0 tables
 *                          and a `list` column in _items; a collection without lists
 *                          keeps every row in list 0. A query scans the nearest lists
 *                          only (one KNN statement each); one that wants them all omits
 *                          the `list` constraint (vec0 then scans every list of the
 *                          partition). Centroids are written in the transaction that
 *                          creates the generation and never change: an upsert assigns
 *                          its vector to the nearest one; a collection that crosses
 *                          IVF_MIN_ROWS later, or outgrows its lists, sets needsRebuild.
 *                          Older generations (no _lists table) answer as before until
 *                          a rebuild replaces them.
 *
 * Deletes: sqlite-vec 0.1.9 leaves a deleted row's slot empty for good (a
 * chunk is only freed when all its rows go), so replaced and deleted rows
 * leave holes that are still scanned. Rows are deleted for real (queries never
 * see them); the holes are counted (`stats().reclaimable`, `needsRebuild`) and
 * `rebuild()` — batched, beside the live generation — reclaims them.
 *
 * Writes inside another transaction run as a SAVEPOINT; with vec0 that turns
 * superlinear when one call replaces thousands of existing rows (4,000
 * replacements: 0.35 s on their own, 4.7 s nested). The ingest writes a
 * frame's objects at a time, which is fine; bulk re-writes go through
 * rebuild() or separate transactions.
 *
 * Do not run searches inside a write transaction that may roll back: the
 * cache trusts that a rowid it has read keeps its vector.
 */
import type Database from 'better-sqlite3';
import { setImmediate as turn } from 'node:timers/promises';
import { invalid } from '../../../errors.js';
import {
  IVF_MIN_ROWS,
  IVF_RETRAIN_FACTOR,
  listsFor,
  nearestList,
  PROBE_MIN_LISTS,
  PROBE_POLICY,
  probeRowsFor,
  rankLists,
  residual,
  sampleFor,
  trainLists,
  type ProbePolicy,
} from '../ivf.js';
import {
  candidatesFor,
  cosineFromL2,
  exactRescoreFor,
  Int8Cache,
  MAX_K,
  normalize,
  quantizeBits,
  quantizeInt8,
  SIMILARITY_MODELS,
  vectorBytes,
  vectorFromBytes,
  type RebuildOptions,
  type SimilarityModel,
  type VectorCoverage,
  type VectorHit,
  type VectorIndex,
  type VectorIndexStats,
  type VectorQuery,
  type VectorRow,
  type VectorSearchInfo,
} from '../types.js';
import { genCodeMirror, type GenCodeMirror } from './codeMirror.js';
import { rowidBitmap, type BitCodeMirror } from '../bitCodeMirror.js';

type Db = Database.Database;

/** vec0's default chunk size (rows per chunk). */
const CHUNK_SIZE = 1024;
/** 1 row in 2^SAMPLE_BITS goes to the sample table too. */
const SAMPLE_BITS = 6;
const SAMPLE_RATE = 1 << SAMPLE_BITS;
const inSample = (rowid: number): boolean => Math.imul(rowid, 0x9e3779b1) >>> (32 - SAMPLE_BITS) === 0;
/** The bound aims at this many times the candidates wanted (the first pass then keeps the best). */
const BOUND_MARGIN = 2;
/** The sample KNN costs sample rows × rank itself: past this rank the bound is not worth it. */
const MAX_SAMPLE_RANK = 1_024;
/** Rows of object_embeddings (in object id order: random ids, so a random sample) whose mean becomes the centre at a rebuild. */
const CENTER_SAMPLE = 20_000;
/** A model quantised without its mean is worth a rebuild from this many rows. */
const UNCENTERED_REBUILD_ROWS = 10_000;
const JSON_CHUNK = 30_000;
const WARM_BATCH = 20_000;
/** A probe that would read this fraction of a collection's rows scans the whole partition (one KNN statement, not one a list). */
const WHOLE_PARTITION_FRACTION = 0.5;
/** The post-filter path re-ranks at least this many allowed candidates (else it filters inside the scan after all). */
const MIN_POST_CANDIDATES = 256;

const now = () => new Date().toISOString();

/** Tuning (the defaults are the measured ones; see the bench section "search"). */
export interface VectorIndexTuning {
  /**
   * A filtered query re-ranks all its allowed vectors (no first pass) when
   * there are at most exactBase + rows scanned × exactFraction of them, and at
   * most exactMax. Both paths first resolve the allowed items to rows (~3–4 µs
   * an item); then the first pass costs a scan of the collections' codes
   * (60–100 ns a row here) and the exact path ~1.5 µs an allowed vector (int8
   * from memory): the crossover is near rows / 20 (measured at 1M rows: 20k
   * allowed items 110 ms exact vs 235 ms through the scan; 100k items 603 ms
   * vs 373 ms).
   */
  exactBase?: number;
  exactFraction?: number;
  exactMax?: number;
  /**
   * Above this many media ids the allowed rows are not resolved first (that costs ~1–2 µs an id):
   * unfiltered first pass with a bigger k, filter after, refill; resolve after all if still short.
   */
  resolveMaxMedia?: number;
  /** rows × k above which the first pass is bounded by the sample (0: whenever the sample allows). */
  unboundedMaxWork?: number;
  /** Bytes of int8 copies kept in memory (default 2 GiB ≈ 2.7M 768-d vectors). */
  cacheBytes?: number;
  /** Bytes of 1-bit codes kept in memory for the first pass (default 512 MiB ≈ 5M 768-d rows); a generation that does not fit is searched through vec0. */
  codeCacheBytes?: number;
  /** Start loading a generation's codes and int8 copies on its first search (default true). */
  autoWarm?: boolean;
  /** A collection gets coarse lists at rebuild from this many vectors (default IVF_MIN_ROWS). */
  ivfMinRows?: number;
  /** Lists per collection (default: listsFor(rows)). */
  ivfLists?: number;
  /** What the probed lists hold at least: max(rows × fraction, candidates × perCandidate, minRows) (default PROBE_POLICY). */
  ivfProbe?: Partial<ProbePolicy>;
  /** Fewest lists probed (default PROBE_MIN_LISTS). */
  ivfMinProbe?: number;
}

const DEFAULTS = {
  exactBase: 2_000,
  exactFraction: 1 / 20,
  exactMax: 60_000,
  resolveMaxMedia: 50_000,
  unboundedMaxWork: 4_000_000,
  cacheBytes: 2 * 1024 ** 3,
  codeCacheBytes: 512 * 1024 ** 2,
  autoWarm: true,
  ivfMinRows: IVF_MIN_ROWS,
  ivfLists: 0,
  ivfMinProbe: PROBE_MIN_LISTS,
};

interface GenRow {
  id: number;
  model_id: string;
  dims: number;
  quantizer: string;
  center: Buffer | null;
  state: 'live' | 'building';
  deleted_rows: number;
}

interface ItemRef {
  rowid: number;
  dataset_id: string;
  similarity_model: string;
  /** Its coarse list (0 in a collection without lists and in generations from before IVF). */
  list: number;
}

/** The coarse lists of one collection and similarity model: `count` unit centroids, row-major. */
interface Lists {
  count: number;
  centroids: Float32Array;
  trainedRows: number;
}

/** What one first-pass KNN statement scans: a collection's partition, one of its lists or (null) all of them. */
interface Part {
  ds: string;
  list: number | null;
  rows: number;
}

/** Lists trained for a new generation. */
interface TrainedLists {
  ds: string;
  sm: string;
  count: number;
  centroids: Float32Array;
  trainedRows: number;
}

interface Candidate {
  rowid: number;
  distance: number;
}

type Stmt = Database.Statement<unknown[]>;

interface Gen {
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
  s: Record<
    | 'insItem'
    | 'insF32'
    | 'insQ8'
    | 'insVec'
    | 'insSample'
    | 'delVec'
    | 'delSample'
    | 'delItem'
    | 'delF32'
    | 'delQ8'
    | 'itemByObject'
    | 'itemsByObjects'
    | 'itemsByMedia'
    | 'knn'
    | 'knnBound'
    | 'knnIn'
    | 'knnInBound'
    | 'sampleKnn'
    | 'resolve'
    | 'allRows'
    | 'mediaOf'
    | 'q8Of'
    | 'q8After'
    | 'exact'
    | 'hitsOf'
    | 'chunks',
    Stmt
  >;
  /** IVF generations only: KNN over one list, the list rows, their centroids, and list row counts kept in step. */
  l: Record<
    'knn' | 'knnBound' | 'sampleKnn' | 'listRows' | 'centroids' | 'bumpList' | 'listCount' | 'listedGroups',
    Stmt
  > | null;
}

/** The SQLite vector index plus synchronous writers for use inside another store's transaction. */
export interface SqliteVectorIndex extends VectorIndex {
  /** The same writes, synchronous: call them inside the transaction that writes object_embeddings. */
  sync: {
    upsert(rows: VectorRow[]): void;
    remove(objectIds: string[]): void;
    removeMedia(mediaIds: string[]): void;
  };
  /** search, synchronous, with how it ran (benchmarks, tests). */
  searchWithInfo(query: VectorQuery): { hits: VectorHit[]; info: VectorSearchInfo };
  /** Memory held by the int8 cache. */
  cacheSize(): { bytes: number; slabs: number };
}

export function sqliteVectorIndex(db: Db, tuning: VectorIndexTuning = {}): SqliteVectorIndex {
  const T = { ...DEFAULTS, ...tuning };
  const probePolicy: ProbePolicy = { ...PROBE_POLICY, ...tuning.ivfProbe };
  const cache = new Int8Cache(T.cacheBytes);

  const registry = db.prepare(
    `SELECT id, model_id, dims, quantizer, center, state, deleted_rows FROM vector_indexes ORDER BY id`,
  );
  const insGen = db.prepare(
    `INSERT INTO vector_indexes (model_id, dims, quantizer, center, state, created_at, built_at) VALUES (?, ?, 'sign-centered', ?, ?, ?, ?)`,
  );
  const addDeleted = db.prepare(`UPDATE vector_indexes SET deleted_rows = deleted_rows + ? WHERE id = ?`);
  const bumpPartition = db.prepare(
    `INSERT INTO vector_index_partitions (index_id, dataset_id, similarity_model, rows) VALUES (?, ?, ?, ?)
     ON CONFLICT (index_id, dataset_id, similarity_model) DO UPDATE SET rows = rows + excluded.rows`,
  );
  const partitionRows = db.prepare(
    `SELECT dataset_id, rows FROM vector_index_partitions
     WHERE index_id = ? AND similarity_model = ? AND dataset_id IN (SELECT value FROM json_each(?)) AND rows > 0`,
  );

  // ---- generations, cached; reloaded when the registry changed (by this object, another one on the same
  // connection, or another connection): its signature is a read of a table of a few rows.
  let gens = new Map<number, Gen>();
  let loadedSignature: string | null = null;
  let dirty = true;
  const signatureStmt = db.prepare(`SELECT coalesce(group_concat(id || state, ','), '') FROM vector_indexes`).pluck();

  const tableExists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).pluck();

  const prepareGen = (r: GenRow): Gen => {
    const t = `vec_index_${r.id}`;
    const items = `${t}_items`;
    const knnBase = `SELECT rowid, distance FROM ${t} WHERE embedding MATCH vec_bit(?) AND k = ? AND dataset_id = ? AND similarity_model = ?`;
    const ivf = tableExists.get(`${t}_lists`) !== undefined;
    const listCol = ivf ? 'list' : '0 AS list';
    return {
      ivf,
      lists: new Map(),
      l: ivf
        ? {
            knn: db.prepare(`${knnBase} AND list = ?`),
            knnBound: db.prepare(`${knnBase} AND list = ? AND distance <= ?`),
            sampleKnn: db.prepare(
              `SELECT distance FROM ${t}_sample WHERE embedding MATCH vec_bit(?) AND k = ? AND dataset_id = ? AND similarity_model = ? AND list = ?`,
            ),
            listRows: db.prepare(`SELECT list, rows FROM ${t}_lists WHERE dataset_id = ? AND similarity_model = ?`),
            centroids: db.prepare(
              `SELECT list, centroid, trained_rows AS trainedRows FROM ${t}_lists WHERE dataset_id = ? AND similarity_model = ? ORDER BY list`,
            ),
            bumpList: db.prepare(
              `UPDATE ${t}_lists SET rows = rows + ? WHERE dataset_id = ? AND similarity_model = ? AND list = ?`,
            ),
            listCount: db.prepare(`SELECT count(*) FROM ${t}_lists`).pluck(),
            listedGroups: db
              .prepare(`SELECT count(DISTINCT dataset_id || char(0) || similarity_model) FROM ${t}_lists`)
              .pluck(),
          }
        : null,
      id: r.id,
      modelId: r.model_id,
      dims: r.dims,
      state: r.state,
      quantizer: r.quantizer,
      center: r.center ? vectorFromBytes(new Uint8Array(r.center)) : null,
      table: t,
      warm: 'no',
      warming: null,
      codes: genCodeMirror(db, t, r.dims, ivf, T.codeCacheBytes),
      s: {
        insItem: ivf
          ? db.prepare(
              `INSERT INTO ${items} (object_id, media_id, frame_id, dataset_id, similarity_model, list) VALUES (?, ?, ?, ?, ?, ?)`,
            )
          : db.prepare(
              `INSERT INTO ${items} (object_id, media_id, frame_id, dataset_id, similarity_model) VALUES (?, ?, ?, ?, ?)`,
            ),
        insF32: db.prepare(`INSERT INTO ${t}_f32 (id, vector) VALUES (?, ?)`),
        insQ8: db.prepare(`INSERT INTO ${t}_q8 (id, q) VALUES (?, ?)`),
        insVec: ivf
          ? db.prepare(
              `INSERT INTO ${t} (rowid, dataset_id, similarity_model, list, embedding) VALUES (?, ?, ?, ?, vec_bit(?))`,
            )
          : db.prepare(
              `INSERT INTO ${t} (rowid, dataset_id, similarity_model, embedding) VALUES (?, ?, ?, vec_bit(?))`,
            ),
        insSample: ivf
          ? db.prepare(
              `INSERT INTO ${t}_sample (rowid, dataset_id, similarity_model, list, embedding) VALUES (?, ?, ?, ?, vec_bit(?))`,
            )
          : db.prepare(
              `INSERT INTO ${t}_sample (rowid, dataset_id, similarity_model, embedding) VALUES (?, ?, ?, vec_bit(?))`,
            ),
        delVec: db.prepare(`DELETE FROM ${t} WHERE rowid = ?`),
        delSample: db.prepare(`DELETE FROM ${t}_sample WHERE rowid = ?`),
        delItem: db.prepare(`DELETE FROM ${items} WHERE id = ?`),
        delF32: db.prepare(`DELETE FROM ${t}_f32 WHERE id = ?`),
        delQ8: db.prepare(`DELETE FROM ${t}_q8 WHERE id = ?`),
        itemByObject: db.prepare(
          `SELECT id AS rowid, dataset_id, similarity_model, ${listCol} FROM ${items} WHERE object_id = ?`,
        ),
        itemsByObjects: db.prepare(
          `SELECT id AS rowid, dataset_id, similarity_model, ${listCol} FROM ${items} WHERE object_id IN (SELECT value FROM json_each(?))`,
        ),
        itemsByMedia: db.prepare(
          `SELECT id AS rowid, dataset_id, similarity_model, ${listCol} FROM ${items} WHERE media_id IN (SELECT value FROM json_each(?))`,
        ),
        knn: db.prepare(knnBase),
        knnBound: db.prepare(`${knnBase} AND distance <= ?`),
        knnIn: db.prepare(`${knnBase} AND rowid IN (SELECT value FROM json_each(?))`),
        knnInBound: db.prepare(`${knnBase} AND rowid IN (SELECT value FROM json_each(?)) AND distance <= ?`),
        sampleKnn: db.prepare(
          `SELECT distance FROM ${t}_sample WHERE embedding MATCH vec_bit(?) AND k = ? AND dataset_id = ? AND similarity_model = ?`,
        ),
        resolve: db
          .prepare(
            `SELECT id FROM ${items} WHERE media_id IN (SELECT value FROM json_each(?)) AND similarity_model = ?
               AND dataset_id IN (SELECT value FROM json_each(?))`,
          )
          .pluck(),
        allRows: db
          .prepare(
            `SELECT id FROM ${items} WHERE dataset_id IN (SELECT value FROM json_each(?)) AND similarity_model = ?`,
          )
          .pluck(),
        mediaOf: db.prepare(
          `SELECT id AS rowid, media_id AS mediaId FROM ${items} WHERE id IN (SELECT value FROM json_each(?))`,
        ),
        q8Of: db.prepare(`SELECT id, q FROM ${t}_q8 WHERE id IN (SELECT value FROM json_each(?))`),
        q8After: db.prepare(`SELECT id, q FROM ${t}_q8 WHERE id > ? ORDER BY id LIMIT ?`),
        exact: db.prepare(
          `SELECT id, vec_distance_l2(vector, ?) AS d FROM ${t}_f32 WHERE id IN (SELECT value FROM json_each(?))`,
        ),
        hitsOf: db.prepare(
          `SELECT id, object_id AS objectId, media_id AS mediaId, frame_id AS frameId, dataset_id AS datasetId
           FROM ${items} WHERE id IN (SELECT value FROM json_each(?))`,
        ),
        chunks: db.prepare(`SELECT count(*) FROM ${t}_chunks`).pluck(),
      },
    };
  };

  const load = () => {
    const v = signatureStmt.get() as string;
    if (!dirty && v === loadedSignature) return;
    const next = new Map<number, Gen>();
    for (const r of registry.all() as GenRow[]) {
      const g = gens.get(r.id);
      if (g) g.state = r.state; // the only field that changes after creation
      next.set(r.id, g ?? prepareGen(r));
    }
    for (const id of gens.keys()) if (!next.has(id)) cache.dropGeneration(id);
    gens = next;
    loadedSignature = v;
    dirty = false;
  };
  const gensOf = (modelId: string): Gen[] => {
    load();
    return [...gens.values()].filter((g) => g.modelId === modelId);
  };
  /** The generation that answers queries: the live one, else one being built (partial). */
  const answering = (modelId: string): Gen | null => {
    const list = gensOf(modelId);
    return list.find((g) => g.state === 'live') ?? list.find((g) => g.state === 'building') ?? null;
  };

  /** A new generation's tables (always the IVF layout) and, in the same transaction, its lists. */
  const createGen = (
    modelId: string,
    dims: number,
    center: Float32Array | null,
    state: 'live' | 'building',
    lists: TrainedLists[] = [],
  ): Gen => {
    if (dims <= 0 || dims % 8 !== 0) throw invalid(`vector index: dims must be a positive multiple of 8 (got ${dims})`);
    const at = now();
    const id = Number(
      insGen.run(
        modelId,
        dims,
        center ? Buffer.from(vectorBytes(center)) : null,
        state,
        at,
        state === 'live' ? at : null,
      ).lastInsertRowid,
    );
    const t = `vec_index_${id}`;
    db.exec(`
      CREATE VIRTUAL TABLE ${t} USING vec0(dataset_id text partition key, similarity_model text partition key, list integer partition key, embedding bit[${dims}]);
      CREATE VIRTUAL TABLE ${t}_sample USING vec0(dataset_id text partition key, similarity_model text partition key, list integer partition key, embedding bit[${dims}]);
      CREATE TABLE ${t}_items (
        id               INTEGER PRIMARY KEY AUTOINCREMENT, -- the vec0 rowid; never reused (the cache trusts it)
        object_id        TEXT NOT NULL UNIQUE,
        media_id         TEXT NOT NULL,
        frame_id         TEXT,
        dataset_id       TEXT NOT NULL,
        similarity_model TEXT NOT NULL,
        list             INTEGER NOT NULL DEFAULT 0 -- its coarse list (the vec0 partition key)
      );
      CREATE INDEX ${t}_items_media ON ${t}_items(media_id, similarity_model, dataset_id);
      CREATE INDEX ${t}_items_dataset ON ${t}_items(dataset_id, similarity_model);
      CREATE TABLE ${t}_f32 (id INTEGER PRIMARY KEY, vector BLOB NOT NULL); -- float32 LE, unit length
      CREATE TABLE ${t}_q8 (id INTEGER PRIMARY KEY, q BLOB NOT NULL); -- float32 scale, then int8 × dims
      CREATE TABLE ${t}_lists (
        dataset_id       TEXT NOT NULL,
        similarity_model TEXT NOT NULL,
        list             INTEGER NOT NULL,
        centroid         BLOB NOT NULL,    -- float32 LE, unit length
        rows             INTEGER NOT NULL, -- live rows in the list
        trained_rows     INTEGER NOT NULL, -- the collection's rows when the lists were trained
        PRIMARY KEY (dataset_id, similarity_model, list)
      ) WITHOUT ROWID;
    `);
    const insList = db.prepare(
      `INSERT INTO ${t}_lists (dataset_id, similarity_model, list, centroid, rows, trained_rows) VALUES (?, ?, ?, ?, 0, ?)`,
    );
    for (const l of lists) {
      for (let j = 0; j < l.count; j++)
        insList.run(
          l.ds,
          l.sm,
          BigInt(j),
          Buffer.from(vectorBytes(l.centroids.subarray(j * dims, (j + 1) * dims))),
          l.trainedRows,
        );
    }
    dirty = true;
    load();
    return gens.get(id)!;
  };

  const dropGen = (g: Gen) => {
    db.exec(
      `DROP TABLE IF EXISTS ${g.table}; DROP TABLE IF EXISTS ${g.table}_sample; DROP TABLE IF EXISTS ${g.table}_items; DROP TABLE IF EXISTS ${g.table}_f32; DROP TABLE IF EXISTS ${g.table}_q8; DROP TABLE IF EXISTS ${g.table}_lists;`,
    );
    db.prepare(`DELETE FROM vector_index_partitions WHERE index_id = ?`).run(g.id);
    db.prepare(`DELETE FROM vector_indexes WHERE id = ?`).run(g.id);
    cache.dropGeneration(g.id);
    dirty = true;
  };

  /** The coarse lists of a collection and similarity model in a generation (null: none: one scan of the partition). */
  const listsOf = (g: Gen, ds: string, sm: string): Lists | null => {
    if (!g.l) return null;
    const key = `${ds}\u0000${sm}`;
    let l = g.lists.get(key);
    if (l === undefined) {
      const rows = g.l.centroids.all(ds, sm) as Array<{ list: number; centroid: Buffer; trainedRows: number }>;
      if (rows.length === 0) l = null;
      else {
        const centroids = new Float32Array(rows.length * g.dims);
        rows.forEach((r, j) => centroids.set(vectorFromBytes(new Uint8Array(r.centroid)), j * g.dims));
        l = { count: rows.length, centroids, trainedRows: rows[0].trainedRows };
      }
      g.lists.set(key, l);
    }
    return l;
  };

  // ---- writes

  /** Partition (and list) row deltas of one write, applied at its end. */
  const deltas = () => {
    const m = new Map<string, { g: number; d: string; s: string; n: number }>();
    const lists = new Map<string, { g: Gen; d: string; s: string; l: number; n: number }>();
    return {
      add(g: number, d: string, s: string, n: number) {
        const key = `${g}\u0000${d}\u0000${s}`;
        const e = m.get(key);
        if (e) e.n += n;
        else m.set(key, { g, d, s, n });
      },
      addList(g: Gen, d: string, s: string, l: number, n: number) {
        const key = `${g.id}\u0000${d}\u0000${s}\u0000${l}`;
        const e = lists.get(key);
        if (e) e.n += n;
        else lists.set(key, { g, d, s, l, n });
      },
      flush() {
        for (const e of m.values()) if (e.n !== 0) bumpPartition.run(e.g, e.d, e.s, e.n);
        for (const e of lists.values()) if (e.n !== 0) e.g.l?.bumpList.run(e.n, e.d, e.s, BigInt(e.l));
      },
    };
  };
  type Deltas = ReturnType<typeof deltas>;

  const deleteItem = (g: Gen, it: ItemRef, dl: Deltas) => {
    const rid = BigInt(it.rowid);
    g.codes.touched(it.rowid);
    g.s.delVec.run(rid);
    if (inSample(it.rowid)) g.s.delSample.run(rid);
    g.s.delItem.run(rid);
    g.s.delF32.run(rid);
    g.s.delQ8.run(rid);
    dl.add(g.id, it.dataset_id, it.similarity_model, -1);
    if (listsOf(g, it.dataset_id, it.similarity_model)) dl.addList(g, it.dataset_id, it.similarity_model, it.list, -1);
  };

  const insertRow = (
    g: Gen,
    row: Omit<VectorRow, 'modelId' | 'vector'>,
    unit: Float32Array,
    dl: Deltas,
    scratch: Uint8Array,
  ) => {
    const c = quantizeBits(unit, g.center, scratch);
    const code = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    // Generations made since IVF take the list as a third partition key (and an _items column).
    const lists = g.ivf ? listsOf(g, row.datasetId, row.similarityModel) : null;
    const list = lists ? nearestList(lists.centroids, lists.count, residual(unit, g.center)) : 0;
    const key = g.ivf ? [BigInt(list)] : [];
    const rowid = Number(
      g.s.insItem.run(row.objectId, row.mediaId, row.frameId ?? null, row.datasetId, row.similarityModel, ...key)
        .lastInsertRowid,
    );
    const rid = BigInt(rowid);
    g.s.insF32.run(rid, vectorBytes(unit));
    g.s.insQ8.run(rid, quantizeInt8(unit));
    g.s.insVec.run(rid, row.datasetId, row.similarityModel, ...key, code);
    g.codes.touched(rowid);
    if (inSample(rowid)) g.s.insSample.run(rid, row.datasetId, row.similarityModel, ...key, code);
    if (lists) dl.addList(g, row.datasetId, row.similarityModel, list, 1);
    dl.add(g.id, row.datasetId, row.similarityModel, 1);
  };

  const checkRow = (r: VectorRow) => {
    if (!SIMILARITY_MODELS.includes(r.similarityModel))
      throw invalid(`vector index: unknown similarity model ${r.similarityModel}`);
    if (!r.objectId || !r.mediaId || !r.datasetId || !r.modelId)
      throw invalid('vector index: objectId, mediaId, datasetId and modelId are required');
  };

  const upsertSync = db.transaction((rows: VectorRow[]) => {
    const byModel = new Map<string, VectorRow[]>();
    for (const r of rows) {
      checkRow(r);
      const list = byModel.get(r.modelId);
      if (list) list.push(r);
      else byModel.set(r.modelId, [r]);
    }
    const dl = deltas();
    for (const [modelId, list] of byModel) {
      let targets = gensOf(modelId);
      if (targets.length === 0) targets = [createGen(modelId, list[0].vector.length, null, 'live')];
      for (const g of targets) {
        let replaced = 0;
        const scratch = new Uint8Array(g.dims >> 3);
        for (const r of list) {
          if (r.vector.length !== g.dims)
            throw invalid(`vector index: model ${modelId} has ${g.dims} dims, got a vector of ${r.vector.length}`);
          const old = g.s.itemByObject.get(r.objectId) as ItemRef | undefined;
          if (old) {
            deleteItem(g, old, dl);
            replaced++;
          }
          insertRow(g, r, normalize(r.vector), dl, scratch);
        }
        if (replaced) addDeleted.run(replaced, g.id);
      }
    }
    dl.flush();
  });

  const removeBy = (kind: 'objects' | 'media', ids: string[]) => {
    if (ids.length === 0) return;
    load();
    const dl = deltas();
    for (const g of gens.values()) {
      let n = 0;
      for (let i = 0; i < ids.length; i += JSON_CHUNK) {
        const json = JSON.stringify(ids.slice(i, i + JSON_CHUNK));
        const found = (kind === 'objects' ? g.s.itemsByObjects : g.s.itemsByMedia).all(json) as ItemRef[];
        for (const it of found) deleteItem(g, it, dl);
        n += found.length;
      }
      if (n) addDeleted.run(n, g.id);
    }
    dl.flush();
  };
  const removeSync = db.transaction((objectIds: string[]) => removeBy('objects', objectIds));
  const removeMediaSync = db.transaction((mediaIds: string[]) => removeBy('media', mediaIds));

  // ---- the int8 cache

  const warmGen = (g: Gen): Promise<number> => {
    if (g.warm === 'running' && g.warming) return g.warming;
    if (g.warm !== 'no') return Promise.resolve(0);
    g.warm = 'running';
    g.warming = loadGen(g).finally(() => {
      g.warming = null;
    });
    return g.warming;
  };

  /** Loads a generation's codes (the first pass) and then its int8 copies (the re-rank) into memory. */
  const loadGen = async (g: Gen): Promise<number> => {
    let after = 0;
    let n = 0;
    try {
      await g.codes.load();
      for (;;) {
        if (!db.open || !gens.has(g.id)) break;
        const rows = g.s.q8After.all(after, WARM_BATCH) as Array<{ id: number; q: Buffer }>;
        for (const r of rows) cache.put(g.id, r.id, r.q);
        n += rows.length;
        if (rows.length < WARM_BATCH) break;
        after = rows[rows.length - 1].id;
        if (cache.size.bytes + WARM_BATCH * (g.dims + 4) > T.cacheBytes) break; // full: let queries pick what stays
        await turn();
      }
    } catch (err) {
      if (db.open) throw err; // closed under us (shutdown, tests): stop quietly
    } finally {
      g.warm = 'done';
    }
    return n;
  };

  /** int8 scores of the rows against the unit query, from the cache (misses read from the q8 table and cached). */
  const rerank = (
    g: Gen,
    unit: Float32Array,
    rowids: number[],
    info: VectorSearchInfo,
  ): Array<{ rowid: number; s: number }> => {
    const out: Array<{ rowid: number; s: number }> = [];
    const missing: number[] = [];
    let lastSlab = -1;
    for (const r of rowids) {
      const s = cache.dot(g.id, r, unit);
      if (s === null) missing.push(r);
      else out.push({ rowid: r, s });
      const slab = r >> 10;
      if (slab !== lastSlab) {
        cache.touch(g.id, r);
        lastSlab = slab;
      }
    }
    info.cacheMisses += missing.length;
    for (let i = 0; i < missing.length; i += JSON_CHUNK) {
      for (const row of g.s.q8Of.all(JSON.stringify(missing.slice(i, i + JSON_CHUNK))) as Array<{
        id: number;
        q: Buffer;
      }>) {
        cache.put(g.id, row.id, row.q);
        out.push({ rowid: row.id, s: cache.dot(g.id, row.id, unit) ?? dotInt8(row.q, unit) });
      }
    }
    return out;
  };

  /**
   * The best k hits from the int8 scores: the best exactRescoreFor(k) rescored
   * exactly from float32 (all of them up to k = 100), the rest keep their int8
   * similarity; best first by the similarity returned.
   */
  const finish = (
    g: Gen,
    qBytes: Buffer,
    scored: Array<{ rowid: number; s: number }>,
    k: number,
    exactTop: number | undefined,
  ): VectorHit[] => {
    scored.sort((a, b) => b.s - a.s || a.rowid - b.rowid);
    if (scored.length === 0) return [];
    const e = Math.min(scored.length, exactTop ?? exactRescoreFor(k));
    const sim = new Map<number, number>();
    if (e > 0) {
      for (const r of g.s.exact.all(qBytes, JSON.stringify(scored.slice(0, e).map((x) => x.rowid))) as Array<{
        id: number;
        d: number;
      }>) {
        sim.set(r.id, cosineFromL2(r.d));
      }
    }
    const ranked = scored.slice(0, Math.max(k, e)).map((x) => ({ rowid: x.rowid, s: sim.get(x.rowid) ?? x.s }));
    ranked.sort((a, b) => b.s - a.s || a.rowid - b.rowid);
    const top = ranked.slice(0, k);
    const ids = new Map<number, { objectId: string; mediaId: string; frameId: string | null; datasetId: string }>();
    for (let i = 0; i < top.length; i += JSON_CHUNK) {
      for (const r of g.s.hitsOf.all(JSON.stringify(top.slice(i, i + JSON_CHUNK).map((x) => x.rowid))) as Array<{
        id: number;
        objectId: string;
        mediaId: string;
        frameId: string | null;
        datasetId: string;
      }>) {
        ids.set(r.id, r);
      }
    }
    const out: VectorHit[] = [];
    for (const x of top) {
      const r = ids.get(x.rowid);
      if (r)
        out.push({
          objectId: r.objectId,
          mediaId: r.mediaId,
          frameId: r.frameId,
          datasetId: r.datasetId,
          similarity: x.s,
        });
    }
    return out;
  };

  // ---- search

  /**
   * The Hamming bound under which about `want` rows of these partitions lie
   * (over the allowed fraction `selectivity`), from the sample table; null when
   * the sample is too small to tell.
   */
  const bound = (g: Gen, code: Buffer, parts: Part[], sm: string, want: number, selectivity: number, widen: number) => {
    const rank = Math.ceil((BOUND_MARGIN * widen * want) / (Math.max(selectivity, 1e-9) * SAMPLE_RATE)) + 4;
    if (rank > MAX_SAMPLE_RANK) return null;
    const dists: number[] = [];
    for (const p of parts) {
      if (p.rows < SAMPLE_RATE) continue;
      const got =
        p.list === null
          ? g.s.sampleKnn.all(code, rank, p.ds, sm)
          : g.l!.sampleKnn.all(code, rank, p.ds, sm, BigInt(p.list));
      for (const r of got as Array<{ distance: number }>) dists.push(r.distance);
    }
    if (dists.length < rank) return null;
    dists.sort((a, b) => a - b);
    return dists[rank - 1];
  };

  /** The first pass: the best `want` rows by Hamming distance over the partitions (optionally only `allowed` rows). */
  const firstPass = (
    g: Gen,
    code: Buffer,
    parts: Part[],
    sm: string,
    want: number,
    allowed: number[] | null,
    info: VectorSearchInfo,
    codes: BitCodeMirror | null,
  ): Candidate[] => {
    if (codes) {
      info.firstPass = 'memory';
      return codes.scan(
        parts.map((p) => ({ ds: p.ds, sm, list: p.list })),
        code,
        want,
        allowed ? rowidBitmap(allowed) : null,
      );
    }
    info.firstPass = 'sqlite';
    const total = parts.reduce((a, p) => a + p.rows, 0);
    const reachable = allowed ? Math.min(allowed.length, total) : total;
    const selectivity = allowed ? Math.min(1, allowed.length / Math.max(1, total)) : 1;
    const allowedJson = allowed ? JSON.stringify(allowed) : null;
    // Work of an unbounded KNN ≈ rows scanned × min(k, candidates per chunk) (see the file comment).
    const work = total * Math.min(want, CHUNK_SIZE * selectivity);
    // Bounds for 1×, 4× and 16× the wanted rows; unbounded only when the sample cannot tell (an unbounded
    // KNN with k ≈ 1,000 over 1M rows costs seconds).
    const widths = [1, 4, 16];
    for (let attempt = 0; ; attempt++) {
      const t =
        work > T.unboundedMaxWork && attempt < widths.length
          ? bound(g, code, parts, sm, want, selectivity, widths[attempt])
          : null;
      const out: Candidate[] = [];
      for (const { ds: d, list, rows } of parts) {
        const k = Math.min(want, rows);
        let got: Candidate[];
        if (list !== null) {
          // One coarse list (never with `allowed`: filtered-inside scans read whole partitions).
          const l = BigInt(list);
          got = (t === null ? g.l!.knn.all(code, k, d, sm, l) : g.l!.knnBound.all(code, k, d, sm, l, t)) as Candidate[];
        } else if (allowedJson) {
          got = (
            t === null ? g.s.knnIn.all(code, k, d, sm, allowedJson) : g.s.knnInBound.all(code, k, d, sm, allowedJson, t)
          ) as Candidate[];
        } else {
          got = (t === null ? g.s.knn.all(code, k, d, sm) : g.s.knnBound.all(code, k, d, sm, t)) as Candidate[];
        }
        info.knnQueries++;
        for (const c of got) out.push(c);
      }
      info.threshold = t;
      // A bound too tight for this query cut the pass short: widen it (half the wanted rows is enough past the first try).
      if (t !== null && out.length < Math.min(attempt === 0 ? want : Math.ceil(want / 2), reachable)) continue;
      out.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
      return out.length > want ? out.slice(0, want) : out;
    }
  };

  /**
   * What the first pass scans for `want` candidates: per collection, the whole
   * partition (no lists, or probe = Infinity), or its lists nearest to the
   * query until they hold probeRowsFor(rows, want) rows and at least
   * ivfMinProbe lists (or exactly `probe` lists when given).
   */
  const planParts = (
    g: Gen,
    unit: Float32Array,
    full: Part[],
    sm: string,
    want: number,
    probe: number | undefined,
    info: VectorSearchInfo,
  ) => {
    const parts: Part[] = [];
    let subset = false;
    let res: Float32Array | null = null;
    for (const p of full) {
      const lists = probe === Infinity ? null : listsOf(g, p.ds, sm);
      if (!lists) {
        parts.push(p);
        continue;
      }
      const rowsOf = new Map<number, number>();
      for (const r of g.l!.listRows.all(p.ds, sm) as Array<{ list: number; rows: number }>) rowsOf.set(r.list, r.rows);
      const target = probeRowsFor(p.rows, want, probePolicy);
      const chosen: Part[] = [];
      let covered = 0;
      let nonEmpty = 0;
      res ??= residual(unit, g.center);
      for (const j of rankLists(lists.centroids, lists.count, res)) {
        const rows = rowsOf.get(j) ?? 0;
        if (rows <= 0) continue;
        nonEmpty++;
        const enough =
          probe !== undefined ? chosen.length >= probe : covered >= target && chosen.length >= T.ivfMinProbe;
        if (enough) continue;
        chosen.push({ ds: p.ds, list: j, rows });
        covered += rows;
      }
      // Most of the lists: one statement over the partition costs less than one a list.
      if (chosen.length >= nonEmpty || (probe === undefined && covered >= p.rows * WHOLE_PARTITION_FRACTION))
        parts.push(p);
      else {
        subset = true;
        info.lists += chosen.length;
        for (const c of chosen) parts.push(c);
      }
    }
    info.scanned = parts.reduce((a, x) => a + x.rows, 0);
    return { parts, subset };
  };

  const searchWithInfo = (q: VectorQuery): { hits: VectorHit[]; info: VectorSearchInfo } => {
    const info: VectorSearchInfo = {
      strategy: 'empty',
      firstPass: 'none',
      candidates: 0,
      cacheMisses: 0,
      knnQueries: 0,
      threshold: null,
      filter: q.mediaIds ? 'inside' : 'none',
      lists: 0,
      scanned: 0,
    };
    if (!Number.isInteger(q.k) || q.k < 1 || q.k > MAX_K) throw invalid(`vector search: k must be 1..${MAX_K}`);
    if (!SIMILARITY_MODELS.includes(q.similarityModel))
      throw invalid(`vector search: unknown similarity model ${q.similarityModel}`);
    const g = answering(q.modelId);
    if (!g) return { hits: [], info };
    if (q.vector.length !== g.dims)
      throw invalid(`vector search: model ${q.modelId} has ${g.dims} dims, the query has ${q.vector.length}`);
    if (T.autoWarm && g.warm === 'no') void warmGen(g).catch(() => undefined);
    const datasetIds = [...new Set(q.datasetIds)];
    if (datasetIds.length === 0 || (q.mediaIds && q.mediaIds.length === 0)) return { hits: [], info };
    const datasetsJson = JSON.stringify(datasetIds);
    const parts = (
      partitionRows.all(g.id, q.similarityModel, datasetsJson) as Array<{ dataset_id: string; rows: number }>
    ).map((r): Part => ({ ds: r.dataset_id, list: null, rows: r.rows }));
    const total = parts.reduce((a, p) => a + p.rows, 0);
    if (total === 0) return { hits: [], info };
    // The first pass runs over the in-memory codes once they are loaded and current (else through vec0).
    const codes = g.codes.ready(parts.map((p) => ({ ds: p.ds, sm: q.similarityModel, rows: p.rows })));

    const unit = normalize(q.vector);
    const qBytes = vectorBytes(unit);
    const c = quantizeBits(unit, g.center);
    const code = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    const want = candidatesFor(q.k, q.oversample);
    const strategy = q.strategy ?? 'auto';
    const exact = (rowids: number[]) => {
      info.strategy = 'exact';
      info.candidates = rowids.length;
      return { hits: finish(g, qBytes, rerank(g, unit, rowids, info), q.k, q.exactTop), info };
    };
    const ann = (allowed: number[] | null) => {
      // Filtered inside the scan: every list (the allowed rows may sit anywhere); else the nearest lists.
      const scan = allowed ? parts : planParts(g, unit, parts, q.similarityModel, want, q.probe, info).parts;
      if (allowed) info.scanned = total;
      const cands = firstPass(g, code, scan, q.similarityModel, want, allowed, info, codes);
      info.strategy = 'ann';
      info.candidates = cands.length;
      return {
        hits: finish(
          g,
          qBytes,
          rerank(
            g,
            unit,
            cands.map((x) => x.rowid),
            info,
          ),
          q.k,
          q.exactTop,
        ),
        info,
      };
    };
    const resolve = (mediaIds: string[]) => {
      const out: number[] = [];
      for (let i = 0; i < mediaIds.length; i += JSON_CHUNK) {
        for (const r of g.s.resolve.all(
          JSON.stringify(mediaIds.slice(i, i + JSON_CHUNK)),
          q.similarityModel,
          datasetsJson,
        ) as number[])
          out.push(r);
      }
      return out;
    };

    if (!q.mediaIds) {
      // Small collections: re-ranking every vector from memory beats a KNN whose k is most of the rows.
      if (strategy === 'exact' || (strategy === 'auto' && total <= 2 * want))
        return exact(g.s.allRows.all(datasetsJson, q.similarityModel) as number[]);
      return ann(null);
    }
    const mediaIds = [...new Set(q.mediaIds)];
    if (mediaIds.length <= T.resolveMaxMedia || strategy === 'exact') {
      const allowed = resolve(mediaIds);
      if (allowed.length === 0) return { hits: [], info };
      const exactLimit = Math.max(want, Math.min(T.exactMax, T.exactBase + total * T.exactFraction));
      if (strategy === 'exact' || (strategy === 'auto' && allowed.length <= exactLimit)) return exact(allowed);
      return ann(allowed);
    }
    // Many items allowed: unfiltered first pass with a bigger k, filter, refill.
    info.filter = 'post';
    const mediaSet = new Set(mediaIds);
    let fetch = Math.min(MAX_K, Math.ceil(want / Math.min(1, mediaIds.length / total)));
    let everyList = false;
    for (;;) {
      info.lists = 0;
      const plan = everyList
        ? { parts, subset: false }
        : planParts(g, unit, parts, q.similarityModel, fetch, q.probe, info);
      if (everyList) info.scanned = total;
      const cands = firstPass(g, code, plan.parts, q.similarityModel, fetch, null, info, codes);
      const media = new Map<number, string>();
      for (let i = 0; i < cands.length; i += JSON_CHUNK) {
        for (const r of g.s.mediaOf.all(JSON.stringify(cands.slice(i, i + JSON_CHUNK).map((x) => x.rowid))) as Array<{
          rowid: number;
          mediaId: string;
        }>) {
          media.set(r.rowid, r.mediaId);
        }
      }
      const kept = cands.filter((x) => mediaSet.has(media.get(x.rowid) ?? ''));
      const exhausted = cands.length < fetch;
      // The nearest lists ran out of allowed rows: scan them all.
      if (exhausted && plan.subset && kept.length < Math.min(want, Math.max(4 * q.k, MIN_POST_CANDIDATES))) {
        everyList = true;
        continue;
      }
      // Enough allowed candidates to re-rank (fewer than `want` is fine past 4 per hit: the scan order is the same).
      if (kept.length >= Math.min(want, Math.max(4 * q.k, MIN_POST_CANDIDATES)) || exhausted) {
        info.strategy = 'ann';
        const use = kept.slice(0, want).map((x) => x.rowid);
        info.candidates = use.length;
        return { hits: finish(g, qBytes, rerank(g, unit, use, info), q.k, q.exactTop), info };
      }
      if (fetch < MAX_K) {
        fetch = Math.min(MAX_K, fetch * 4);
        continue;
      }
      // Still short at vec0's k limit: filter inside the scan after all.
      info.filter = 'inside';
      return ann(resolve(mediaIds));
    }
  };

  // ---- rebuild

  const centerSample = db
    .prepare(`SELECT vector FROM object_embeddings WHERE +model_id = ? ORDER BY object_id LIMIT ?`)
    .pluck();
  // +e.model_id keeps the planner on the primary key (object_id range, in order) instead of sorting the model's rows each batch.
  const sourceBatch = db.prepare(
    `SELECT e.object_id AS objectId, e.similarity_model AS similarityModel, e.media_id AS mediaId, e.dataset_id AS datasetId,
            e.vector AS vector, d.frame_id AS frameId
     FROM object_embeddings e
     LEFT JOIN detected_objects d ON d.id = e.object_id
     LEFT JOIN media m ON m.id = e.media_id
     WHERE +e.model_id = ? AND e.object_id > ? AND (d.status IS NULL OR d.status = 'active') AND (m.status IS NULL OR m.status = 'active')
     ORDER BY e.object_id LIMIT ?`,
  );

  // The covering index object_embeddings_by_model answers both: counts without reading vectors, and a
  // partition's rows in object id order (random ids: a random sample).
  const partitionCounts = db.prepare(
    `SELECT dataset_id AS ds, similarity_model AS sm, count(*) AS n FROM object_embeddings WHERE model_id = ? GROUP BY similarity_model, dataset_id`,
  );
  const partitionSample = db
    .prepare(
      `SELECT vector FROM object_embeddings WHERE model_id = ? AND similarity_model = ? AND dataset_id = ? ORDER BY object_id LIMIT ?`,
    )
    .pluck();

  /** The centre (the model's mean) and, for each collection past ivfMinRows, its trained lists; null when the model has no vectors. */
  const planRebuild = async (
    modelId: string,
    signal?: AbortSignal,
  ): Promise<{ dims: number; center: Float32Array; lists: TrainedLists[] } | null> => {
    const blobs = centerSample.all(modelId, CENTER_SAMPLE) as Buffer[];
    if (blobs.length === 0) return null;
    const dims = blobs[0].byteLength >> 2;
    const mean = new Float64Array(dims);
    let n = 0;
    for (const b of blobs) {
      if (b.byteLength !== dims * 4) continue;
      const v = normalize(vectorFromBytes(b));
      for (let i = 0; i < dims; i++) mean[i] += v[i];
      n++;
    }
    const center = Float32Array.from(mean, (x) => x / n);
    const lists: TrainedLists[] = [];
    for (const p of partitionCounts.all(modelId) as Array<{ ds: string; sm: string; n: number }>) {
      if (p.n < T.ivfMinRows || !SIMILARITY_MODELS.includes(p.sm as SimilarityModel)) continue;
      const count = T.ivfLists || listsFor(p.n);
      const sample = (partitionSample.all(modelId, p.sm, p.ds, sampleFor(count)) as Buffer[])
        .filter((b) => b.byteLength === dims * 4)
        .map((b) => residual(normalize(vectorFromBytes(b)), center));
      if (sample.length < count) continue;
      if (signal?.aborted) throw signal.reason ?? new Error('rebuild aborted');
      lists.push({ ds: p.ds, sm: p.sm, count, centroids: await trainLists(sample, count), trainedRows: p.n });
    }
    return { dims, center, lists };
  };

  const startRebuild = db.transaction(
    (modelId: string, plan: { dims: number; center: Float32Array; lists: TrainedLists[] } | null): Gen | null => {
      for (const g of gensOf(modelId)) if (g.state === 'building') dropGen(g);
      if (!plan) {
        for (const g of gensOf(modelId)) dropGen(g);
        return null;
      }
      return createGen(modelId, plan.dims, plan.center, 'building', plan.lists);
    },
  );

  const copyBatch = db.transaction((g: Gen, after: string, size: number): { n: number; last: string } => {
    const rows = sourceBatch.all(g.modelId, after, size) as Array<
      Omit<VectorRow, 'vector' | 'modelId'> & { vector: Buffer }
    >;
    const dl = deltas();
    const scratch = new Uint8Array(g.dims >> 3);
    for (const r of rows) {
      if (r.vector.byteLength !== g.dims * 4 || !SIMILARITY_MODELS.includes(r.similarityModel)) continue;
      if (g.s.itemByObject.get(r.objectId)) continue; // written meanwhile by upsert: newer
      insertRow(g, r, normalize(vectorFromBytes(r.vector)), dl, scratch);
    }
    dl.flush();
    return { n: rows.length, last: rows.length ? rows[rows.length - 1].objectId : after };
  });

  const finishRebuild = db.transaction((g: Gen) => {
    for (const old of gensOf(g.modelId)) if (old.id !== g.id) dropGen(old);
    db.prepare(`UPDATE vector_indexes SET state = 'live', built_at = ?, deleted_rows = 0 WHERE id = ?`).run(
      now(),
      g.id,
    );
    dirty = true;
  });

  const rebuild = async (modelId: string, o: RebuildOptions = {}): Promise<{ rows: number }> => {
    const size = o.batchSize ?? 5_000;
    const g = startRebuild(modelId, await planRebuild(modelId, o.signal));
    if (!g) return { rows: 0 };
    let after = '';
    let done = 0;
    try {
      for (;;) {
        if (o.signal?.aborted) throw o.signal.reason ?? new Error('rebuild aborted');
        load();
        if (!gens.has(g.id)) throw new Error(`vector index: the rebuild of ${modelId} was superseded`);
        const r = copyBatch(g, after, size);
        done += r.n;
        after = r.last;
        o.onProgress?.(done);
        if (r.n < size) break;
        await turn();
      }
    } catch (err) {
      load();
      if (db.open && gens.has(g.id)) db.transaction(() => dropGen(g))();
      throw err;
    }
    finishRebuild(g);
    const rows = db
      .prepare(`SELECT coalesce(sum(rows), 0) FROM vector_index_partitions WHERE index_id = ?`)
      .pluck()
      .get(g.id) as number;
    return { rows };
  };

  // ---- reporting

  // Prepared once: organization search reads stats() on every query (which models answer).
  const genRows = db.prepare(
    `SELECT count(DISTINCT dataset_id) AS n, coalesce(sum(rows), 0) AS rows FROM vector_index_partitions WHERE index_id = ? AND rows > 0`,
  );
  const bigPartitions = db.prepare(
    `SELECT dataset_id AS ds, similarity_model AS sm, rows FROM vector_index_partitions WHERE index_id = ? AND rows >= ?`,
  );
  const statsOf = (g: Gen): VectorIndexStats => {
    const parts = genRows.get(g.id) as { n: number; rows: number };
    const slots = (g.s.chunks.get() as number) * CHUNK_SIZE;
    const lists = g.l ? (g.l.listCount.get() as number) : 0;
    // Each vec0 partition (a collection without lists, or one list) has a partly filled last chunk.
    const listed = g.l ? (g.l.listedGroups.get() as number) : 0;
    const reclaimable = Math.max(0, slots - parts.rows - (parts.n - listed + lists) * CHUNK_SIZE);
    // Collections big enough for lists without them (or grown past IVF_RETRAIN_FACTOR × the rows they were trained on).
    let unlistedRows = 0;
    for (const p of bigPartitions.all(g.id, T.ivfMinRows) as Array<{ ds: string; sm: string; rows: number }>) {
      const l = listsOf(g, p.ds, p.sm);
      if (!l || p.rows > IVF_RETRAIN_FACTOR * l.trainedRows) unlistedRows += p.rows;
    }
    return {
      modelId: g.modelId,
      dims: g.dims,
      sourceDtype: 'float32',
      indexDtype: 'bit',
      rerankDtype: 'int8',
      quantizer: g.quantizer,
      centered: g.center !== null,
      state: g.state,
      rows: parts.rows,
      slots,
      reclaimable,
      needsRebuild:
        reclaimable > Math.max(50_000, parts.rows / 4) ||
        (g.center === null && parts.rows >= UNCENTERED_REBUILD_ROWS) ||
        unlistedRows > 0,
      cachedRows: cache.rows(g.id),
      lists,
      unlistedRows,
    };
  };

  const coverage = (modelId: string, datasetIds: string[], sm?: SimilarityModel): VectorCoverage => {
    const json = JSON.stringify([...new Set(datasetIds)]);
    const g = answering(modelId);
    const indexed = g
      ? (db
          .prepare(
            `SELECT coalesce(sum(rows), 0) FROM vector_index_partitions
             WHERE index_id = ? AND dataset_id IN (SELECT value FROM json_each(?)) ${sm ? 'AND similarity_model = ?' : ''}`,
          )
          .pluck()
          .get(...[g.id, json, ...(sm ? [sm] : [])]) as number)
      : 0;
    const objects = db
      .prepare(
        `SELECT count(*) FROM media m JOIN detected_objects o ON o.media_id = m.id
         WHERE m.dataset_id IN (SELECT value FROM json_each(?)) AND m.status = 'active' AND m.is_current = 1
           AND o.status = 'active' AND ${sm ? 'o.similarity_model = ?' : 'o.similarity_model IS NOT NULL'}`,
      )
      .pluck()
      .get(...[json, ...(sm ? [sm] : [])]) as number;
    return {
      modelId,
      indexed,
      objects,
      fraction: objects === 0 ? 1 : Math.min(1, indexed / objects),
      live: g?.state === 'live',
    };
  };

  return {
    sync: {
      upsert: (rows) => {
        if (rows.length) upsertSync(rows);
      },
      remove: (ids) => {
        if (ids.length) removeSync(ids);
      },
      removeMedia: (ids) => {
        if (ids.length) removeMediaSync(ids);
      },
    },
    searchWithInfo,
    search: async (q) => searchWithInfo(q).hits,
    upsert: async (rows) => {
      if (rows.length) upsertSync(rows);
    },
    remove: async (ids) => {
      if (ids.length) removeSync(ids);
    },
    removeMedia: async (ids) => {
      if (ids.length) removeMediaSync(ids);
    },
    rebuild,
    coverage: async (modelId, datasetIds, sm) => coverage(modelId, datasetIds, sm),
    stats: async (modelId) => {
      load();
      return [...gens.values()].filter((g) => modelId === undefined || g.modelId === modelId).map(statsOf);
    },
    dropModel: async (modelId) => {
      db.transaction(() => {
        for (const g of gensOf(modelId)) dropGen(g);
      })();
    },
    warm: async (modelId) => {
      load();
      let rows = 0;
      for (const g of [...gens.values()]) {
        if (modelId !== undefined && g.modelId !== modelId) continue;
        // One under way is waited for; a finished one is loaded again (what the cache dropped since).
        if (g.warm !== 'running') g.warm = 'no';
        rows += await warmGen(g);
      }
      return { rows };
    },
    unindexedModels: async () => {
      load();
      const have = new Set([...gens.values()].map((g) => g.modelId));
      return (db.prepare(`SELECT DISTINCT model_id FROM object_embeddings`).pluck().all() as string[]).filter(
        (m) => !have.has(m),
      );
    },
    cacheSize: () => cache.size,
  };
}

/** The int8 dot product straight from a q8 blob (when the cache has no room). */
function dotInt8(blob: Uint8Array, y: Float32Array): number {
  const scale = new DataView(blob.buffer, blob.byteOffset, 4).getFloat32(0, true);
  const q = new Int8Array(blob.buffer, blob.byteOffset + 4, y.length);
  let s = 0;
  for (let i = 0; i < y.length; i++) s += q[i] * y[i];
  return s * scale;
}
