import type { WatchStore } from '../watchStore.js';
import type { PgDb } from '../../platform/pgDb.js';
import { notImplemented } from '../../platform/notImplemented.js';

/** The watches store on PostgreSQL. */
export function pgWatchStore(db: PgDb): WatchStore {
  void db;
  return notImplemented<WatchStore>('watches');
}
