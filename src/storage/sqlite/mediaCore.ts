import { notFound } from '../../platform/errors.js';
import type { EventWriter } from '../eventWriter.js';
import type { IndexWriters } from '../indexWriters.js';
import type { Db } from './database.js';
import type { MediaRow } from './rows.js';

/** The live rows: active and the current version of their root. */
export const LIVE = `status = 'active' AND is_current = 1`;
export const now = () => new Date().toISOString();

/** A media row as `SELECT *` reads it: with the description column (searchable text) too. */
export type MediaRowWithText = MediaRow & { description: string | null };

/**
 * What the parts of the media store (mediaWrites, mediaTree, mediaReads) share,
 * made once per store: the database, the index and event writers, the row lookup
 * and the storage counter (each one prepared statement).
 */
export interface MediaCore {
  db: Db;
  writers: IndexWriters;
  events: EventWriter;
  fetchRow(id: string): MediaRow | undefined;
  /** The row, or a not-found error. */
  mustRow(id: string): MediaRow;
  /** The row when it is active, else a not-found error. */
  activeRow(id: string): MediaRow;
  /** Adds bytes (fewer when negative, never below 0) to an organization's storage total. */
  addStorage(bytes: number, organizationId: string): void;
}

export function mediaCore(db: Db, writers: IndexWriters, events: EventWriter): MediaCore {
  const getRow = db.prepare(`SELECT * FROM media WHERE id = ?`);
  const addStorage = db.prepare(`UPDATE organizations SET storage_bytes = max(0, storage_bytes + ?) WHERE id = ?`);
  const fetchRow = (id: string): MediaRow | undefined => getRow.get(id) as MediaRow | undefined;
  const mustRow = (id: string): MediaRow => {
    const row = fetchRow(id);
    if (!row) throw notFound('media not found');
    return row;
  };
  const activeRow = (id: string): MediaRow => {
    const row = mustRow(id);
    if (row.status !== 'active') throw notFound('media not found');
    return row;
  };
  return {
    db,
    writers,
    events,
    fetchRow,
    mustRow,
    activeRow,
    addStorage: (bytes, organizationId) => {
      addStorage.run(bytes, organizationId);
    },
  };
}
