/**
 * `npm run migrate -- --from DATA_DIR --to postgres://… [--schema NAME] [--blobs keep|s3|DIR]`: copies a whole
 * SQLite library into PostgreSQL (every table the stores use: organizations, users, keys, sessions,
 * collections, folders, media, versions, frames, captions, objects, vectors, faces, corrections, tags, watch
 * settings) and, with --blobs, its files into another store: `s3` (the S3_* settings of the environment) or
 * another data directory. `keep` (the default) leaves the files where they are: point the new server's
 * DATA_DIR at the same folder. Resumable: kill it and run it again, nothing is copied twice. Ends with a
 * verification: row counts per table and the checksum of every file; what differs is printed and the exit
 * status is 1.
 */
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatDuration } from '../src/cli/import/progress.js';
import { loadConfig } from '../src/config.js';
import { copyBlobs } from '../src/files/blobCopy.js';
import type { BlobStore } from '../src/files/blobStore.js';
import { LocalBlobStore } from '../src/files/localBlobStore.js';
import { openBlobStore } from '../src/files/openBlobStore.js';
import { openPostgresStorage } from '../src/storage/postgres/index.js';
import { openDatabase } from '../src/storage/sqlite/database.js';
import { transferTables, type TransferProgress } from '../src/storage/transfer/transfer.js';
import { compareCounts, referencedBlobKeys } from '../src/storage/transfer/verify.js';
import { buildTransferredVectors } from '../src/storage/transfer/vectors.js';

const { values } = parseArgs({
  options: {
    from: { type: 'string' },
    to: { type: 'string', default: process.env.DATABASE_URL },
    schema: { type: 'string', default: process.env.DATABASE_SCHEMA ?? 'public' },
    blobs: { type: 'string', default: 'keep' },
    'vector-search': { type: 'string', default: process.env.VECTOR_SEARCH ?? 'on' },
  },
});
if (!values.from || !values.to) {
  console.error('usage: npm run migrate -- --from DATA_DIR --to postgres://… [--schema NAME] [--blobs keep|s3|DIR]');
  process.exit(2);
}
const sourceDir = path.resolve(values.from);
const file = path.join(sourceDir, 'library.db');
if (!existsSync(file)) {
  console.error(`no SQLite library at ${file}`);
  process.exit(2);
}

/** One line per update: `table: done/total, rate/s, ETA`, at most every 2 s per phase. */
function reporter(label: string) {
  const started = Date.now();
  let last = 0;
  return (done: number, total: number, name = label) => {
    const now = Date.now();
    if (now - last < 2000 && done < total) return;
    last = now;
    const rate = done / Math.max((now - started) / 1000, 0.001);
    const eta = rate > 0 && done < total ? formatDuration(((total - done) / rate) * 1000) : '–';
    console.log(`${name}: ${done}/${total}, ${rate.toFixed(0)}/s, ETA ${eta}`);
  };
}

/** The S3 store the environment's BLOB_STORE=s3 and S3_* settings name (as the new servers will use it). */
async function openS3Target(): Promise<BlobStore> {
  const config = loadConfig();
  if (config.blobStore !== 's3') throw new Error('--blobs s3 needs BLOB_STORE=s3 and the S3_* settings');
  return openBlobStore(config);
}

// The source is opened as the server opens it (its migrations brought up to date), then only read.
const sqlite: Database.Database = openDatabase(file);
const pg = await openPostgresStorage(values.to, {
  schema: values.schema,
  vectorSearch: values['vector-search'] !== 'off',
  poolMax: 4,
});
try {
  const tables = new Map<string, ReturnType<typeof reporter>>();
  await transferTables(sqlite, pg.db, {
    onProgress: ({ table, done, total }: TransferProgress) => {
      if (!tables.has(table)) tables.set(table, reporter(table));
      tables.get(table)!(done, total);
    },
  });
  // Embeddings arrived without their vector index: each model's is built once, now.
  const vectorProgress = new Map<string, ReturnType<typeof reporter>>();
  await buildTransferredVectors(pg, (model, done, total) => {
    if (!vectorProgress.has(model)) vectorProgress.set(model, reporter(`vector index ${model}`));
    vectorProgress.get(model)!(done, total);
  });
  const differences = await compareCounts(sqlite, pg.db);
  for (const d of differences)
    console.log(`DIFFERS ${d.table}: ${d.sqlite} rows in SQLite, ${d.postgres} in PostgreSQL`);

  const source = new LocalBlobStore(sourceDir);
  const target: BlobStore =
    values.blobs === 'keep'
      ? source
      : values.blobs === 's3'
        ? await openS3Target()
        : new LocalBlobStore(path.resolve(values.blobs));
  await target.init();
  const keys = referencedBlobKeys(sqlite);
  const files = await copyBlobs(source, target, keys, reporter('files'));
  for (const key of files.missing) console.log(`MISSING file ${key} (referenced, not in ${sourceDir})`);
  for (const key of files.corrupt) console.log(`CORRUPT file ${key} (its bytes do not hash to its name)`);
  console.log(
    `files: ${files.copied} copied, ${files.present} already there, ${files.missing.length} missing, ` +
      `${files.corrupt.length} corrupt`,
  );
  const ok = differences.length === 0 && files.missing.length === 0 && files.corrupt.length === 0;
  console.log(ok ? 'verified: every table and file matches' : 'verification found differences (above)');
  process.exitCode = ok ? 0 : 1;
} finally {
  sqlite.close();
  await pg.close();
}
