/**
 * The event log on SQLite (table events, migration 014): the writer the stores append with inside their
 * own transactions, the store the live streams read, and the in-process wake-up of those streams.
 */
import type { EventWriter } from '../eventWriter.js';
import type { EventStore } from '../storage.js';
import type { EventRecord, EventType, NewEvent } from '../types.js';
import type { Db } from './database.js';
import type { MediaRow } from './rows.js';

interface EventRow {
  id: number;
  organization_id: string;
  dataset_id: string | null;
  media_id: string | null;
  type: EventType;
  data: string;
  created_at: string;
}

const toEvent = (r: EventRow): EventRecord => ({
  id: r.id,
  type: r.type,
  organizationId: r.organization_id,
  collectionId: r.dataset_id,
  mediaId: r.media_id,
  data: JSON.parse(r.data) as Record<string, unknown>,
  createdAt: r.created_at,
});

/**
 * An event about an item, from its row as it is now: what a client needs to place it (collection, path,
 * parent, root of its versions), its processing status and error; `data` adds or overrides fields.
 */
export function mediaEvent(type: EventType, row: MediaRow, data: Record<string, unknown> = {}): NewEvent {
  return {
    type,
    organizationId: row.organization_id,
    collectionId: row.dataset_id,
    mediaId: row.id,
    data: {
      mediaType: row.type,
      name: row.name,
      path: row.path,
      parentPath: row.parent_path,
      rootMediaId: row.root_id,
      status: row.processing_status,
      reason: row.processing_error,
      ...data,
    },
  };
}

export function sqliteEventLog(db: Db): { store: EventStore; writer: EventWriter } {
  const insert = db.prepare(
    `INSERT INTO events (organization_id, dataset_id, media_id, type, data, created_at) VALUES (?, ?, ?, ?, ?, ?)
     RETURNING *`,
  );
  const listeners = new Set<() => void>();
  let scheduled = false;
  // A store method's transaction runs to its end synchronously (better-sqlite3), so by the time a microtask
  // runs, the events it appended are committed (or rolled back: a listener then reads nothing new).
  const notify = () => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      for (const listener of [...listeners]) listener();
    });
  };
  const write = (e: NewEvent): EventRecord => {
    const row = insert.get(
      e.organizationId,
      e.collectionId,
      e.mediaId,
      e.type,
      JSON.stringify(e.data),
      new Date().toISOString(),
    ) as EventRow;
    notify();
    return toEvent(row);
  };
  const writer: EventWriter = { append: (e) => void write(e) };
  return { store: eventStore(db, write, listeners), writer };
}

function eventStore(db: Db, write: (e: NewEvent) => EventRecord, listeners: Set<() => void>): EventStore {
  const after = db.prepare(
    `SELECT * FROM events WHERE organization_id = ? AND id > ?
       AND (? IS NULL OR dataset_id = ? OR dataset_id IS NULL) ORDER BY id LIMIT ?`,
  );
  const range = db.prepare(`SELECT min(id) AS first, max(id) AS last FROM events`);
  // AUTOINCREMENT keeps the highest id ever handed out here, even when the table is empty.
  const sequence = db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'events'`).pluck();
  // Deletes a prefix of ids: up to the newest event older than the cutoff, and up to the count limit.
  const trim = db.prepare(
    `DELETE FROM events WHERE id <= max(
       coalesce((SELECT max(id) FROM events WHERE created_at < @olderThan), 0),
       coalesce((SELECT max(id) FROM events), 0) - @keep)`,
  );
  return {
    append: async (event) => db.transaction(() => write(event))(),
    after: async ({ organizationId, afterId, limit, collectionId = null }) =>
      (after.all(organizationId, afterId, collectionId, collectionId, limit) as EventRow[]).map(toEvent),
    bounds: async () => {
      const { first, last } = range.get() as { first: number | null; last: number | null };
      const seq = (sequence.get() as number | undefined) ?? 0;
      return { trimmedThrough: first === null ? seq : first - 1, latest: last ?? seq };
    },
    trim: async (olderThan, keep) => trim.run({ olderThan, keep: Math.max(0, keep) }).changes,
    onAppend: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
