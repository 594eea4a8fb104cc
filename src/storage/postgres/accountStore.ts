import type { AccountStore } from '../storage.js';
import type { PgDb } from '../../platform/pgDb.js';
import { notImplemented } from '../../platform/notImplemented.js';

/** The accounts store on PostgreSQL. */
export function pgAccountStore(db: PgDb): AccountStore {
  void db;
  return notImplemented<AccountStore>('accounts');
}
