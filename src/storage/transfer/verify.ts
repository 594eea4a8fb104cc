import type Database from 'better-sqlite3';
import type { PgDb } from '../../platform/pgDb.js';
import { TRANSFER_TABLES } from './tables.js';

/** A table whose row count differs between the SQLite library and PostgreSQL after a transfer. */
export interface CountDifference {
  table: string;
  sqlite: number;
  postgres: number;
}

/** Row counts per table on both sides (what TRANSFER_TABLES copies); the tables that differ. */
export async function compareCounts(sqlite: Database.Database, pg: PgDb): Promise<CountDifference[]> {
  const differences: CountDifference[] = [];
  for (const table of TRANSFER_TABLES) {
    const exists = sqlite.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table.name);
    if (!exists) continue;
    const where = table.where ? `WHERE ${table.where}` : '';
    const left = (sqlite.prepare(`SELECT count(*) AS n FROM ${table.name} ${where}`).get() as { n: number }).n;
    // cluster_pending may be shorter on PostgreSQL: faces SQLite clustered meanwhile are not queued again.
    const right = (await pg.one<{ n: number }>(`SELECT count(*) AS n FROM ${table.name} ${where}`))!.n;
    if (left !== right) differences.push({ table: table.name, sqlite: left, postgres: right });
  }
  return differences;
}

/**
 * Every blob key the SQLite library references: originals, frames, renditions, object crops, and the files
 * only `exif` names (a video's web copy, a Live Photo's movie).
 */
export function referencedBlobKeys(sqlite: Database.Database): string[] {
  const rows = sqlite
    .prepare(
      `SELECT blob_key AS k FROM media WHERE blob_key IS NOT NULL
       UNION SELECT blob_key FROM frames
       UNION SELECT thumbnail_key FROM frames WHERE thumbnail_key IS NOT NULL
       UNION SELECT preview_key FROM frames WHERE preview_key IS NOT NULL
       UNION SELECT blob_key FROM detected_objects WHERE blob_key IS NOT NULL
       UNION SELECT json_extract(exif, '$.webVideo.key') FROM media
         WHERE json_valid(exif) AND json_extract(exif, '$.webVideo.key') IS NOT NULL
       UNION SELECT json_extract(exif, '$.livePhoto.key') FROM media
         WHERE json_valid(exif) AND json_extract(exif, '$.livePhoto.key') IS NOT NULL
       ORDER BY 1`,
    )
    .all() as Array<{ k: string }>;
  return rows.map((r) => r.k);
}
