/**
 * The event log on PostgreSQL (table events): the store the live streams read, and the hub that wakes them
 * when this process or another one appended. The stores append inside their own transactions with
 * appendEvent (./eventAppend.ts), which takes EVENTS_LOCK so that ids become visible in id order.
 */
import type { PgDb } from '../../platform/pgDb.js';
import type { EventStore } from '../storage.js';
import type { EventRecord, EventType } from '../types.js';
import { appendEvent, EVENTS_LOCK, NOTIFY_ORIGIN } from './eventAppend.js';
import { EVENTS_CHANNEL, type PgEventHub } from './eventHub.js';
import { pgListener, type PgListener } from '../../platform/pgListener.js';

interface EventRow {
  id: number;
  organization_id: string;
  dataset_id: string | null;
  media_id: string | null;
  type: EventType;
  data: Record<string, unknown>;
  created_at: string;
}

const toEvent = (r: EventRow): EventRecord => ({
  id: r.id,
  type: r.type,
  organizationId: r.organization_id,
  collectionId: r.dataset_id,
  mediaId: r.media_id,
  data: r.data,
  createdAt: r.created_at,
});

/** Longest wait for this process's other transactions before the listeners are called anyway (a busy pool). */
const MAX_COALESCE_MS = 50;

/**
 * The event hub of a PostgreSQL storage: this process's appends call the listeners after their commit,
 * other processes' through LISTEN on EVENTS_CHANNEL on `listener`'s connection (its own by default; the
 * storage shares one with the job wake-ups). Listeners are coalesced: one call for a burst. A burst here is
 * what this process's pool has in flight: after an append's commit, the call waits (at most MAX_COALESCE_MS)
 * until no pooled connection is checked out, so that concurrent appends are heard once, after all of them.
 */
export function pgEventHub(db: PgDb, listener: PgListener = pgListener(db)): PgEventHub {
  const listeners = new Set<() => void>();
  const pool = db.pool;
  const busy = () => pool.totalCount - pool.idleCount > 0;
  let scheduled = false;
  let pending: NodeJS.Timeout | null = null;
  const call = () => {
    if (pending) clearTimeout(pending);
    pending = null;
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      for (const fn of [...listeners]) fn();
    });
  };
  const appended = () => {
    if (!busy()) call();
    else if (!pending) pending = setTimeout(call, MAX_COALESCE_MS);
  };
  // A connection back in the pool: once the committing store has had its turn to call appended() (a
  // macrotask later), nothing in flight means the burst is over.
  const released = () => {
    if (pending) setImmediate(() => pending && !busy() && call());
  };
  pool.on('release', released);
  const unlisten = listener.on(EVENTS_CHANNEL, (payload) => fromElsewhere(payload, db.schema) && call());
  return {
    appended,
    onAppend(fn) {
      listeners.add(fn);
      return () => void listeners.delete(fn);
    },
    start: () => listener.start(),
    async stop() {
      unlisten();
      pool.off('release', released);
      if (pending) clearTimeout(pending);
      pending = null;
      await listener.stop();
    },
  };
}

/**
 * Whether a NOTIFY payload (`schema origin`, eventAppend.ts) is another process's append to this schema; '' (the
 * listener reconnected: anything may have been missed) counts too, and so does a bare origin (a process of the
 * version before, which did not name the schema).
 */
function fromElsewhere(payload: string, schema: string): boolean {
  const [first, second] = payload.split(' ');
  if (second === undefined) return first !== NOTIFY_ORIGIN;
  return first === schema && second !== NOTIFY_ORIGIN;
}

const EVENT_COLUMNS = `id, organization_id, dataset_id, media_id, type, data, created_at`;

/** The event log on PostgreSQL (table events). */
export function pgEventLog(db: PgDb, hub: PgEventHub): EventStore {
  return {
    async append(event) {
      const row = await db.tx(async (tx) => {
        const id = await appendEvent(tx, event);
        return tx.one<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1`, [id]);
      });
      hub.appended();
      return toEvent(row!);
    },

    async after({ organizationId, afterId, limit, collectionId = null }) {
      const rows = await db.many<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE organization_id = $1 AND id > $2
           AND ($3::text IS NULL OR dataset_id = $3 OR dataset_id IS NULL) ORDER BY id LIMIT $4`,
        [organizationId, afterId, collectionId, limit],
      );
      return rows.map(toEvent);
    },

    // Under the events lock (shared): no append is half-way, so `latest` is never an id still uncommitted (a
    // stream that started after it would skip that event). The sequence keeps the newest id ever handed out,
    // even when the table is empty.
    async bounds() {
      const row = await db.tx(async (tx) => {
        await tx.query(`SELECT pg_advisory_xact_lock_shared($1)`, [EVENTS_LOCK]);
        return tx.one<{ first: number | null; last: number | null; seq: number }>(
          `SELECT (SELECT min(id) FROM events) AS first, (SELECT max(id) FROM events) AS last,
             (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_id_seq) AS seq`,
        );
      });
      const { first, last, seq } = row!;
      return { trimmedThrough: first === null ? seq : first - 1, latest: last ?? seq };
    },

    // Deletes a prefix of ids: up to the newest event older than the cutoff, and up to the count limit.
    async trim(olderThan, keep) {
      const result = await db.query(
        `DELETE FROM events WHERE id <= greatest(
           coalesce((SELECT max(id) FROM events WHERE created_at < $1), 0),
           coalesce((SELECT max(id) FROM events), 0) - $2)`,
        [olderThan, Math.max(0, keep)],
      );
      return result.rowCount ?? 0;
    },

    onAppend: (listener) => hub.onAppend(listener),
  };
}
