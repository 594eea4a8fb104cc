/**
 * The library as the backup, restore and check tools open it beside a running server: the database without
 * the start-up check and its "closed cleanly" mark (those belong to the server), the blob store without
 * clearing its scratch folder (the server's uploads in flight live there).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/config.js';
import { formatBytes, formatDuration } from '../../src/cli/import/progress.js';
import type { ProgressReport } from '../../src/features/backup/progress.js';
import type { BlobStore } from '../../src/files/blobStore.js';
import { openBlobStore } from '../../src/files/openBlobStore.js';
import { StartupError } from '../../src/platform/startupError.js';
import { openStorage } from '../../src/storage/openStorage.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import type { Storage } from '../../src/storage/storage.js';

export interface OpenedLibrary {
  storage: Storage;
  blobs: BlobStore;
  close(): Promise<void>;
}

/**
 * Opens the library of `config`; refuses (exit 1, one line) a SQLite DATA_DIR without a library.db, and a PostgreSQL
 * library the server's start-up check would refuse.
 */
export async function openLibrary(config: Config): Promise<OpenedLibrary> {
  const blobs = await openBlobStore(config, undefined, false);
  let storage: Storage;
  if (config.databaseUrl) {
    // A setting the operator can fix (no pgvector without VECTOR_SEARCH=off, an unreachable server) is one line
    // naming the fix, as the server's own start-up gives it; never a stack trace.
    storage = await openStorage({ ...config, poolSize: 2 }).catch((err: unknown) =>
      err instanceof StartupError ? fail(err.message) : Promise.reject(err),
    );
  } else {
    const file = path.join(config.dataDir, 'library.db');
    if (!existsSync(file)) fail(`no library at ${config.dataDir} (no library.db): set DATA_DIR`);
    storage = openSqliteStorage(file);
  }
  return { storage, blobs, close: () => storage.close() };
}

/** Prints a line and ends the process with status 1. */
export function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** The value of `--name VALUE` in argv, undefined when absent. */
export function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const value = argv[i + 1];
  if (value === undefined || value.startsWith('--')) fail(`${name} needs a value`);
  return value;
}

/** One progress line: the phase, counts, bytes, rate and ETA. */
export function progressLine(p: ProgressReport): string {
  const bytes = p.bytesTotal ? ` ${formatBytes(p.bytesDone)}/${formatBytes(p.bytesTotal)},` : '';
  const eta = p.etaMs === null || p.phase === 'done' ? '' : `, ETA ${formatDuration(p.etaMs)}`;
  return (
    `${p.phase}: ${p.filesDone}/${p.filesTotal} files,${bytes} ${formatBytes(p.bytesPerSecond)}/s${eta} ` +
    `(${formatDuration(p.elapsedMs)})`
  );
}
