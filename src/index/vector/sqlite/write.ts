/**
 * Writing the SQLite vector index: upserts and deletes of rows in every
 * generation of their model (a rebuild in progress is kept in step with the
 * live one), with the partition and list row counts they change. These run
 * synchronously inside the caller's transaction (see sqliteVectorIndex.ts).
 */
import { invalid } from '../../../platform/errors.js';
import { nearestList, residual } from '../ivf.js';
import { normalize, vectorBytes } from '../math.js';
import { quantizeBits, quantizeInt8 } from '../quantize.js';
import { SIMILARITY_MODELS, type VectorRow } from '../types.js';
import { createGeneration, generationsOf, listsOf, loadGenerations } from './registry.js';
import type { Generation, ItemRef, VectorIndexState } from './state.js';
import { inSample, JSON_CHUNK } from './tuning.js';

/** Partition (and list) row deltas of one write, applied at its end. */
export class RowCountDeltas {
  private partitions = new Map<string, { genId: number; ds: string; sm: string; n: number }>();
  private lists = new Map<string, { gen: Generation; ds: string; sm: string; list: number; n: number }>();

  /** Counts n rows more (or fewer) in a generation's partition. */
  addPartition(gen: Generation, ds: string, sm: string, n: number): void {
    const key = `${gen.id}\u0000${ds}\u0000${sm}`;
    const entry = this.partitions.get(key);
    if (entry) entry.n += n;
    else this.partitions.set(key, { genId: gen.id, ds, sm, n });
  }

  /** Counts n rows more (or fewer) in one coarse list of a generation's partition. */
  addList(gen: Generation, ds: string, sm: string, list: number, n: number): void {
    const key = `${gen.id}\u0000${ds}\u0000${sm}\u0000${list}`;
    const entry = this.lists.get(key);
    if (entry) entry.n += n;
    else this.lists.set(key, { gen, ds, sm, list, n });
  }

  /** Writes the counts. */
  flush(state: VectorIndexState): void {
    for (const e of this.partitions.values()) if (e.n !== 0) state.sql.bumpPartition.run(e.genId, e.ds, e.sm, e.n);
    for (const e of this.lists.values()) if (e.n !== 0) e.gen.listSql?.bumpList.run(e.n, e.ds, e.sm, BigInt(e.list));
  }
}

/** Deletes one indexed row from every table of its generation. */
function deleteItem(gen: Generation, item: ItemRef, deltas: RowCountDeltas): void {
  const rid = BigInt(item.rowid);
  gen.codes.touched(item.rowid);
  gen.sql.delVec.run(rid);
  if (inSample(item.rowid)) gen.sql.delSample.run(rid);
  gen.sql.delItem.run(rid);
  gen.sql.delF32.run(rid);
  gen.sql.delQ8.run(rid);
  deltas.addPartition(gen, item.dataset_id, item.similarity_model, -1);
  if (listsOf(gen, item.dataset_id, item.similarity_model))
    deltas.addList(gen, item.dataset_id, item.similarity_model, item.list, -1);
}

/** Inserts one row (its unit vector given) into every table of a generation, in its nearest coarse list. */
export function insertRow(
  gen: Generation,
  row: Omit<VectorRow, 'modelId' | 'vector'>,
  unit: Float32Array,
  deltas: RowCountDeltas,
  scratch: Uint8Array,
): void {
  const bits = quantizeBits(unit, gen.center, scratch);
  const code = Buffer.from(bits.buffer, bits.byteOffset, bits.byteLength);
  // Generations made since IVF take the list as a third partition key (and an _items column).
  const lists = gen.ivf ? listsOf(gen, row.collectionId, row.similarityModel) : null;
  const list = lists ? nearestList(lists.centroids, lists.count, residual(unit, gen.center)) : 0;
  const key = gen.ivf ? [BigInt(list)] : [];
  const rowid = Number(
    gen.sql.insItem.run(row.objectId, row.mediaId, row.frameId ?? null, row.collectionId, row.similarityModel, ...key)
      .lastInsertRowid,
  );
  const rid = BigInt(rowid);
  gen.sql.insF32.run(rid, vectorBytes(unit));
  gen.sql.insQ8.run(rid, quantizeInt8(unit));
  gen.sql.insVec.run(rid, row.collectionId, row.similarityModel, ...key, code);
  gen.codes.touched(rowid);
  if (inSample(rowid)) gen.sql.insSample.run(rid, row.collectionId, row.similarityModel, ...key, code);
  if (lists) deltas.addList(gen, row.collectionId, row.similarityModel, list, 1);
  deltas.addPartition(gen, row.collectionId, row.similarityModel, 1);
}

function checkRow(row: VectorRow): void {
  if (!SIMILARITY_MODELS.includes(row.similarityModel))
    throw invalid(`vector index: unknown similarity model ${row.similarityModel}`);
  if (!row.objectId || !row.mediaId || !row.collectionId || !row.modelId)
    throw invalid('vector index: objectId, mediaId, collectionId and modelId are required');
}

/** Adds or replaces rows in every generation of their model; a model's first row creates its index. Run in a transaction. */
export function upsertRows(state: VectorIndexState, rows: VectorRow[]): void {
  const byModel = new Map<string, VectorRow[]>();
  for (const row of rows) {
    checkRow(row);
    const list = byModel.get(row.modelId);
    if (list) list.push(row);
    else byModel.set(row.modelId, [row]);
  }
  const deltas = new RowCountDeltas();
  for (const [modelId, list] of byModel) {
    let targets = generationsOf(state, modelId);
    if (targets.length === 0) targets = [createGeneration(state, modelId, list[0].vector.length, null, 'live')];
    for (const gen of targets) {
      let replaced = 0;
      const scratch = new Uint8Array(gen.dims >> 3);
      for (const row of list) {
        if (row.vector.length !== gen.dims)
          throw invalid(`vector index: model ${modelId} has ${gen.dims} dims, got a vector of ${row.vector.length}`);
        const old = gen.sql.itemByObject.get(row.objectId) as ItemRef | undefined;
        if (old) {
          deleteItem(gen, old, deltas);
          replaced++;
        }
        insertRow(gen, row, normalize(row.vector), deltas, scratch);
      }
      if (replaced) state.sql.addDeleted.run(replaced, gen.id);
    }
  }
  deltas.flush(state);
}

/** Removes the rows of these objects (or of every object of these items) from every generation. Run in a transaction. */
export function removeRows(state: VectorIndexState, kind: 'objects' | 'media', ids: string[]): void {
  if (ids.length === 0) return;
  loadGenerations(state);
  const deltas = new RowCountDeltas();
  for (const gen of state.generations.values()) {
    let removed = 0;
    for (let i = 0; i < ids.length; i += JSON_CHUNK) {
      const json = JSON.stringify(ids.slice(i, i + JSON_CHUNK));
      const found = (kind === 'objects' ? gen.sql.itemsByObjects : gen.sql.itemsByMedia).all(json) as ItemRef[];
      for (const item of found) deleteItem(gen, item, deltas);
      removed += found.length;
    }
    if (removed) state.sql.addDeleted.run(removed, gen.id);
  }
  deltas.flush(state);
}
