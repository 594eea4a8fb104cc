import type { JobStore } from '../../jobs/types.js';
import type { PgDb } from '../../platform/pgDb.js';
import { notImplemented } from '../../platform/notImplemented.js';

/** The jobs store on PostgreSQL. */
export function pgJobStore(db: PgDb): JobStore {
  void db;
  return notImplemented<JobStore>('jobs');
}
