import type { MediaStore } from '../storage.js';
import type { PgDb } from '../../platform/pgDb.js';
import type { PgEventHub } from './eventHub.js';
import { notImplemented } from '../../platform/notImplemented.js';

/** The media store on PostgreSQL; events it appends in its transactions are announced through `hub`. */
export function pgMediaStore(db: PgDb, hub: PgEventHub): MediaStore {
  void db;
  void hub;
  return notImplemented<MediaStore>('media');
}
