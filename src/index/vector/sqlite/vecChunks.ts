import type Database from 'better-sqlite3';
import { codeWords, type CodeChunk } from '../bitCodeMirror.js';

type Db = Database.Database;

/**
 * Reads the 1-bit codes of a vec0 table straight from sqlite-vec's own chunk
 * storage, for the in-memory mirror (../bitCodeMirror.ts). vec0 has no
 * fast way to read its vectors back (a scan through the virtual table is
 * slow row by row), while its shadow tables hold them 1,024 rows to a blob:
 *   <t>_chunks          chunk_id, size (slots), partition00.. (the partition
 *                       key values in declaration order), validity (a bit a
 *                       slot, least significant first), rowids (int64 LE a slot)
 *   <t>_vector_chunks00 rowid = chunk_id, vectors (size × dims/8 bytes)
 *   <t>_rowids          rowid → chunk_id, chunk_offset
 * That layout is sqlite-vec 0.1.9's (the version package.json pins). It is
 * checked when a reader is made (columns) and on every chunk read (blob
 * sizes); a table that does not match gets no reader, and the index keeps
 * answering through vec0's KNN statements.
 */
export interface VecChunkReader {
  /** Chunks with id > after, in id order, at most `limit` (batches of a full load). */
  after(after: number, limit: number): CodeChunk[];
  /** These chunks as stored now; null for a chunk that no longer exists. */
  byIds(ids: number[]): Map<number, CodeChunk | null>;
  /** Every chunk of one collection's partition for a similarity model. */
  group(ds: string, sm: string): CodeChunk[];
  /** The chunk holding a row (null when the row is not in the table). */
  chunkOf(rowid: number): number | null;
}

interface ChunkRow {
  id: number;
  size: number;
  ds: string;
  sm: string;
  list: number | bigint | null;
  validity: Buffer;
  rowids: Buffer;
  vectors: Buffer;
}

const columns = (db: Db, table: string): string[] =>
  db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];

/**
 * A reader for vec0 table `table` (partition keys: dataset_id, similarity_model
 * and, when `hasList`, list), or null when its storage is not the layout known here.
 */
export function vecChunkReader(db: Db, table: string, dims: number, hasList: boolean): VecChunkReader | null {
  const chunkCols = columns(db, `${table}_chunks`);
  const need = [
    'chunk_id',
    'size',
    'validity',
    'rowids',
    'partition00',
    'partition01',
    ...(hasList ? ['partition02'] : []),
  ];
  if (!need.every((c) => chunkCols.includes(c))) return null;
  if (!['rowid', 'vectors'].every((c) => columns(db, `${table}_vector_chunks00`).includes(c))) return null;
  if (!['chunk_id'].every((c) => columns(db, `${table}_rowids`).includes(c))) return null;
  const bytes = dims >> 3;
  const words = Math.ceil(dims / 32);
  const select = `SELECT c.chunk_id AS id, c.size, c.partition00 AS ds, c.partition01 AS sm, ${hasList ? 'c.partition02' : '0'} AS list,
                         c.validity, c.rowids, v.vectors
                  FROM ${table}_chunks c JOIN ${table}_vector_chunks00 v ON v.rowid = c.chunk_id`;
  const afterStmt = db.prepare(`${select} WHERE c.chunk_id > ? ORDER BY c.chunk_id LIMIT ?`);
  const byIdsStmt = db.prepare(`${select} WHERE c.chunk_id IN (SELECT value FROM json_each(?))`);
  const groupStmt = db.prepare(`${select} WHERE c.partition00 = ? AND c.partition01 = ?`);
  const chunkOfStmt = db.prepare(`SELECT chunk_id FROM ${table}_rowids WHERE rowid = ?`).pluck();

  const toChunk = (r: ChunkRow): CodeChunk => {
    const size = Number(r.size);
    if (r.validity.byteLength < size >> 3 || r.rowids.byteLength < size * 8 || r.vectors.byteLength < size * bytes) {
      throw new Error(`vec0 chunk ${r.id} of ${table}: blob sizes do not match sqlite-vec 0.1.9's layout`);
    }
    let live = 0;
    for (let i = 0; i < size; i++) if (r.validity[i >> 3] & (1 << (i & 7))) live++;
    const rowids = new Float64Array(live);
    const codes = new Uint32Array(live * words);
    for (let i = 0, n = 0; i < size; i++) {
      if (!(r.validity[i >> 3] & (1 << (i & 7)))) continue;
      rowids[n] = Number(r.rowids.readBigInt64LE(i * 8));
      codeWords(r.vectors.subarray(i * bytes, (i + 1) * bytes), words, codes, n * words);
      n++;
    }
    return { id: Number(r.id), ds: r.ds, sm: r.sm, list: Number(r.list ?? 0), rowids, codes };
  };

  return {
    after: (after, limit) => (afterStmt.all(after, limit) as ChunkRow[]).map(toChunk),
    byIds: (ids) => {
      const out = new Map<number, CodeChunk | null>(ids.map((id) => [id, null]));
      for (const r of byIdsStmt.all(JSON.stringify(ids)) as ChunkRow[]) out.set(Number(r.id), toChunk(r));
      return out;
    },
    group: (ds, sm) => (groupStmt.all(ds, sm) as ChunkRow[]).map(toChunk),
    chunkOf: (rowid) => {
      const id = chunkOfStmt.get(BigInt(rowid)) as number | bigint | undefined;
      return id === undefined || id === null ? null : Number(id);
    },
  };
}
