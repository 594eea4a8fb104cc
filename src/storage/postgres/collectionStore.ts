import type { CollectionStore } from '../storage.js';
import type { PgDb } from '../../platform/pgDb.js';
import { notImplemented } from '../../platform/notImplemented.js';

/** The collections store on PostgreSQL. */
export function pgCollectionStore(db: PgDb): CollectionStore {
  void db;
  return notImplemented<CollectionStore>('collections');
}
