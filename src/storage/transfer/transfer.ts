import type Database from 'better-sqlite3';
import type { PgDb } from '../../platform/pgDb.js';
import { toPgValue } from './convert.js';
import { TRANSFER_TABLES, type TransferTable } from './tables.js';

/** Progress of one table: rows copied so far (this run and earlier ones) of `total`. */
export interface TransferProgress {
  table: string;
  done: number;
  total: number;
}

export interface TransferOptions {
  /** Rows per PostgreSQL transaction (default 2,000). */
  batchSize?: number;
  onProgress?: (p: TransferProgress) => void;
  signal?: AbortSignal;
}

/**
 * Copies every table of TRANSFER_TABLES from the SQLite library into the (migrated) PostgreSQL schema.
 * Resumable: each batch commits together with the walk's position (table transfer_progress), so a run
 * killed at any point and started again continues after the last committed batch and copies nothing twice
 * (rows already there are also skipped by ON CONFLICT DO NOTHING).
 */
export async function transferTables(
  sqlite: Database.Database,
  pg: PgDb,
  options: TransferOptions = {},
): Promise<void> {
  await pg.query(
    `CREATE TABLE IF NOT EXISTS transfer_progress (tbl text PRIMARY KEY, position json, done bigint NOT NULL DEFAULT 0,
       finished boolean NOT NULL DEFAULT false)`,
  );
  for (const table of TRANSFER_TABLES) {
    options.signal?.throwIfAborted();
    await transferTable(sqlite, pg, table, options);
  }
  await afterTransfer(sqlite, pg);
}

interface Position {
  done: number;
  key: unknown[] | null;
  finished: boolean;
}

async function loadPosition(pg: PgDb, table: string): Promise<Position> {
  const row = await pg.one<{ position: unknown[] | null; done: number; finished: boolean }>(
    `SELECT position, done, finished FROM transfer_progress WHERE tbl = $1`,
    [table],
  );
  return row ? { done: row.done, key: row.position, finished: row.finished } : { done: 0, key: null, finished: false };
}

/** The PostgreSQL columns of a table that SQLite has too, with their types. */
async function sharedColumns(sqlite: Database.Database, pg: PgDb, table: string): Promise<Map<string, string>> {
  const sqliteColumns = new Set(
    (sqlite.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>).map((c) => c.name),
  );
  const rows = await pg.many<{ column_name: string; data_type: string; udt_name: string }>(
    `SELECT column_name, data_type, udt_name FROM information_schema.columns
     WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
    [pg.schema, table],
  );
  return new Map(rows.filter((r) => sqliteColumns.has(r.column_name)).map((r) => [r.column_name, r.data_type]));
}

async function transferTable(sqlite: Database.Database, pg: PgDb, table: TransferTable, options: TransferOptions) {
  const exists = sqlite.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table.name);
  if (!exists) return;
  const position = await loadPosition(pg, table.name);
  const where = table.where ? `(${table.where})` : '1';
  const total = (sqlite.prepare(`SELECT count(*) AS n FROM ${table.name} WHERE ${where}`).get() as { n: number }).n;
  options.onProgress?.({ table: table.name, done: position.done, total });
  if (position.finished) return;
  const columns = await sharedColumns(sqlite, pg, table.name);
  const key = table.key.length ? table.key : ['rowid'];
  const after = `(${key.join(', ')}) > (${key.map(() => '?').join(', ')})`;
  const select = sqlite.prepare(
    `SELECT ${key.includes('rowid') ? 'rowid, ' : ''}* FROM ${table.name} WHERE ${where} AND ${after}
     ORDER BY ${key.join(', ')} LIMIT ?`,
  );
  const first = sqlite.prepare(
    `SELECT ${key.includes('rowid') ? 'rowid, ' : ''}* FROM ${table.name} WHERE ${where} ORDER BY ${key.join(', ')} LIMIT ?`,
  );
  const batchSize = options.batchSize ?? 2_000;
  let { done, key: last } = position;
  for (;;) {
    options.signal?.throwIfAborted();
    const rows = (last ? select.all(...last, batchSize) : first.all(batchSize)) as Array<Record<string, unknown>>;
    if (rows.length === 0) break;
    last = key.map((k) => rows[rows.length - 1][k]);
    done += rows.length;
    await insertBatch(pg, table, columns, rows, { done, last, finished: rows.length < batchSize });
    options.onProgress?.({ table: table.name, done, total });
    if (rows.length < batchSize) return;
  }
  await pg.query(
    `INSERT INTO transfer_progress (tbl, position, done, finished) VALUES ($1, $2, $3, true)
     ON CONFLICT (tbl) DO UPDATE SET finished = true`,
    [table.name, JSON.stringify(last), done],
  );
}

/** One batch and the walk's new position, in one transaction. */
async function insertBatch(
  pg: PgDb,
  table: TransferTable,
  columns: Map<string, string>,
  rows: Array<Record<string, unknown>>,
  position: { done: number; last: unknown[]; finished: boolean },
): Promise<void> {
  const names = [...columns.keys()];
  const params: unknown[] = [];
  const tuples = rows.map((row) => {
    const placeholders = names.map((name) => {
      params.push(toPgValue(row[name], columns.get(name)!));
      return `$${params.length}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  await pg.tx(async (tx) => {
    // The vector index is built once at the end (vectors.rebuild), not grown a row at a time by its triggers.
    if (table.name === 'object_embeddings') await tx.query(`SELECT set_config('lumen.vector_sync', 'off', true)`);
    await tx.query(
      `INSERT INTO ${table.name} (${names.join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`,
      params,
    );
    await tx.query(
      `INSERT INTO transfer_progress (tbl, position, done, finished) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tbl) DO UPDATE SET position = excluded.position, done = excluded.done, finished = excluded.finished`,
      [table.name, JSON.stringify(position.last), position.done, position.finished],
    );
  });
}

/**
 * After the copy: PostgreSQL's trigger queued every copied face for clustering, but SQLite's clusters came
 * along whole — keep only SQLite's own queue; and the serial columns continue after the copied ids.
 */
async function afterTransfer(sqlite: Database.Database, pg: PgDb): Promise<void> {
  const pending = sqlite.prepare(`SELECT object_id, model_id FROM cluster_pending`).all() as Array<{
    object_id: string;
    model_id: string;
  }>;
  await pg.tx(async (tx) => {
    await tx.query(
      `DELETE FROM cluster_pending p WHERE NOT EXISTS (
         SELECT 1 FROM unnest($1::text[], $2::text[]) AS s(object_id, model_id)
         WHERE s.object_id = p.object_id AND s.model_id = p.model_id)`,
      [pending.map((p) => p.object_id), pending.map((p) => p.model_id)],
    );
    for (const [table, column] of [
      ['jobs', 'id'],
      ['cluster_pending', 'seq'],
    ])
      await tx.query(
        `SELECT setval(pg_get_serial_sequence($1, $2), greatest((SELECT coalesce(max(${column}), 0) FROM ${table}), 1))`,
        [table, column],
      );
    // The event log starts empty, after the last id the SQLite library handed out: a stream's cursor from the
    // old server stays "before" every new event.
    const seq = sqlite.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'events'`).get() as
      { seq: number } | undefined;
    if (seq && seq.seq > 0)
      await tx.query(
        `SELECT setval(pg_get_serial_sequence('events', 'id'), greatest($1::bigint, last_value))
                      FROM events_id_seq`,
        [seq.seq],
      );
  });
}
