import path from 'node:path';
import type { SearchIndexes } from '../index/searchIndexes.js';
import { openPostgresStorage } from './postgres/index.js';
import { openSqliteStorage } from './sqlite/index.js';
import { checkDatabaseFile, markClosedCleanly, type StartCheck } from './sqlite/integrity.js';
import type { Storage } from './storage.js';

/** The stores and the search indexes of whichever engine runs, and which one it is. */
export interface OpenedStorage extends Storage {
  indexes: SearchIndexes;
  engine: 'sqlite' | 'postgres';
  /** Whether search by meaning is available (always on SQLite; pgvector present and not turned off on PostgreSQL). */
  vectorSearch: boolean;
}

export interface StorageSettings {
  dataDir: string;
  /** DATABASE_URL: postgres://… selects PostgreSQL; unset keeps SQLite (`<dataDir>/library.db`). */
  databaseUrl?: string;
  /** DATABASE_SCHEMA (PostgreSQL): the schema of the tables. */
  databaseSchema?: string;
  /** VECTOR_SEARCH=off (PostgreSQL without pgvector). */
  vectorSearch: boolean;
  /** DATABASE_POOL_SIZE (PostgreSQL): connections per process. */
  poolSize?: number;
  /** DB_CHECK_AT_START (SQLite): when the file is checked for damage before it is opened. */
  checkAtStart?: StartCheck;
  /** BACKUP_DIR, when set: the folder a damaged database's restore line names. */
  backupDir?: string;
}

/**
 * Opens the engine the settings name: the composition root's one decision between SQLite and PostgreSQL;
 * nothing above storage/ and index/ knows which one runs.
 */
export async function openStorage(settings: StorageSettings): Promise<OpenedStorage> {
  if (settings.databaseUrl) {
    const pg = await openPostgresStorage(settings.databaseUrl, {
      schema: settings.databaseSchema,
      vectorSearch: settings.vectorSearch,
      poolMax: settings.poolSize,
    });
    return Object.assign(pg, { engine: 'postgres' as const });
  }
  const file = path.join(settings.dataDir, 'library.db');
  // A damaged file stops the start with one line saying how to restore, before anything writes to it.
  checkDatabaseFile(file, settings.checkAtStart, settings.backupDir);
  const sqlite = openSqliteStorage(file);
  const close = sqlite.close.bind(sqlite);
  // A clean close is recorded: the next start then skips the check when it runs only after unclean stops.
  const closeCleanly = async () => {
    await close();
    markClosedCleanly(file);
  };
  return Object.assign(sqlite, { engine: 'sqlite' as const, vectorSearch: true, close: closeCleanly });
}
