import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { registerBitmapFunctions } from './bitmapFunctions.js';
import { migrate } from './migrate.js';

export type Db = Database.Database;

/**
 * Opens (creating if needed) the SQLite database, loads sqlite-vec and applies
 * pending migrations. WAL lets readers go on while a writer commits;
 * synchronous=FULL makes every acknowledged write survive a power loss, which
 * matters more here than the fsync it costs per write transaction.
 */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Up to 256 MiB of pages kept in this process (allocated as pages are read). Reads are plain read() calls,
  // not a memory map: over a library bigger than the OS keeps cached, a search reads a few hundred scattered
  // pages, and each fault on a mapped page reads ~128 KiB around it (kernel read-around): a search read several
  // times more from disk with a map than without, and was slower (docs/measurements/storage.md).
  db.pragma('cache_size = -262144');
  db.pragma('temp_store = MEMORY');
  sqliteVec.load(db);
  // Before migrations: migration 021's fill and triggers call them.
  registerBitmapFunctions(db);
  migrate(db);
  // Gathers planner statistics where they are missing or stale (cheap; SQLite's advice for long-lived connections).
  db.pragma('optimize=0x10002');
  return db;
}
