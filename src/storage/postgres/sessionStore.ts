import type { SessionStore } from '../storage.js';
import type { PgDb } from '../../platform/pgDb.js';
import { notImplemented } from '../../platform/notImplemented.js';

/** The sessions store on PostgreSQL. */
export function pgSessionStore(db: PgDb): SessionStore {
  void db;
  return notImplemented<SessionStore>('sessions');
}
