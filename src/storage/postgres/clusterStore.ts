import type { ClusterStore } from '../../index/faces/types.js';
import type { PgDb } from '../../platform/pgDb.js';
import { notImplemented } from '../../platform/notImplemented.js';

/** The clusters store on PostgreSQL. */
export function pgClusterStore(db: PgDb): ClusterStore {
  void db;
  return notImplemented<ClusterStore>('clusters');
}
