import type { PgDb } from '../../../platform/pgDb.js';
import { notImplemented } from '../../../platform/notImplemented.js';
import type { TextIndex } from '../textIndex.js';

/** The text index on PostgreSQL (tsvector + GIN), with the SQLite index's query language and score calibration. */
export function pgTextIndex(db: PgDb): TextIndex {
  void db;
  return notImplemented<TextIndex>('text');
}
