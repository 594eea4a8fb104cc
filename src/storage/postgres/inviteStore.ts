import type { InviteStore } from '../storage.js';
import type { PgDb } from '../../platform/pgDb.js';
import { notImplemented } from '../../platform/notImplemented.js';

/** The invites store on PostgreSQL. */
export function pgInviteStore(db: PgDb): InviteStore {
  void db;
  return notImplemented<InviteStore>('invites');
}
