/**
 * How the PostgreSQL stores tell the live event streams (GET /api/events) that events were appended: in
 * this process at once, after the appending transaction committed (`appended()`), and in every other
 * process through LISTEN/NOTIFY on EVENTS_CHANNEL (the appending transaction sends the NOTIFY, so it is
 * delivered only if it commits). Listeners are coalesced: one call for a burst.
 */
export interface PgEventHub {
  /** A store's transaction that appended events has committed. */
  appended(): void;
  /** Calls `listener` after events were appended here or in another process; returns the unsubscribe. */
  onAppend(listener: () => void): () => void;
  /** Starts listening to other processes (a connection of its own, re-established when it breaks). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The NOTIFY channel of appended events; the payload is empty (listeners read the log after their cursor). */
export const EVENTS_CHANNEL = 'lumen_events';
