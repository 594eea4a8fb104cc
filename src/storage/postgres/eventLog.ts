import type { EventStore } from '../storage.js';
import type { PgDb } from '../../platform/pgDb.js';
import type { PgEventHub } from './eventHub.js';
import { notImplemented } from '../../platform/notImplemented.js';

/** The event hub (LISTEN/NOTIFY and in-process listeners) of a PostgreSQL storage. */
export function pgEventHub(db: PgDb): PgEventHub {
  void db;
  return {
    appended: () => {},
    onAppend: () => () => {},
    start: async () => {},
    stop: async () => {},
  };
}

/** The event log on PostgreSQL (table events). */
export function pgEventLog(db: PgDb, hub: PgEventHub): EventStore {
  void db;
  void hub;
  return notImplemented<EventStore>('events');
}
