import { randomBytes } from 'node:crypto';
import type { PgRunner } from '../../platform/pgDb.js';
import type { NewEvent } from '../types.js';
import { EVENTS_CHANNEL } from './eventHub.js';

/**
 * A key of our own for pg_advisory_xact_lock: transactions that append events take it first and hold it
 * to their commit, so event ids become visible in id order. Without it, a stream that read id 12 while 11
 * was still uncommitted would skip 11 for ever (its cursor is "after 12").
 */
export const EVENTS_LOCK = 0x6c756d66;

/**
 * The NOTIFY payload's second word: random per process, so that a hub ignores its own process's notifications (it
 * heard of those appends at once, through `appended()`) and each append is heard once. The first word is the
 * schema the event went to: NOTIFY is database-wide, and a hub ignores another library's (DATABASE_SCHEMA).
 */
export const NOTIFY_ORIGIN = randomBytes(6).toString('hex');

/**
 * Appends an event inside the caller's transaction (`tx`), as the SQLite stores' EventWriter does: it
 * commits or rolls back with the change it reports. The NOTIFY wakes other processes' streams at commit;
 * after the commit the caller calls its hub's `appended()` for this process's streams.
 */
export async function appendEvent(tx: PgRunner, event: NewEvent): Promise<number> {
  await tx.query(`SELECT pg_advisory_xact_lock($1)`, [EVENTS_LOCK]);
  const row = await tx.one<{ id: number }>(
    `INSERT INTO events (organization_id, dataset_id, media_id, type, data, created_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [event.organizationId, event.collectionId, event.mediaId, event.type, JSON.stringify(event.data), new Date()],
  );
  await tx.query(`SELECT pg_notify($1, current_schema() || ' ' || $2)`, [EVENTS_CHANNEL, NOTIFY_ORIGIN]);
  return row!.id;
}
