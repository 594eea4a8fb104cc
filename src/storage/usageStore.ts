import type { ProcessingStatus } from './types.js';

/** The organization's items (not folders) of one collection in one record and processing status. */
export interface UsageRow {
  collectionId: string;
  /** The record status (`active`, `deleted`, …): counted as the store has it. */
  status: string;
  processingStatus: ProcessingStatus;
  items: number;
  /** Sum of the items' original file sizes (every version counts: each has its own file). */
  bytes: number;
}

/** What the storage screen (/admin/storage) reads: counts and sizes, computed by the database. */
export interface UsageStore {
  byCollection(organizationId: string): Promise<UsageRow[]>;
  /** The database's size on disk in bytes (SQLite: the file and its WAL; PostgreSQL: the schema's relations). */
  databaseBytes(): Promise<number>;
}
