import type { AnalysisStore } from '../storage.js';
import type { PgDb } from '../../platform/pgDb.js';
import type { PgEventHub } from './eventHub.js';
import { notImplemented } from '../../platform/notImplemented.js';

/** The analysis store on PostgreSQL; events it appends in its transactions are announced through `hub`. */
export function pgAnalysisStore(db: PgDb, hub: PgEventHub): AnalysisStore {
  void db;
  void hub;
  return notImplemented<AnalysisStore>('analysis');
}
