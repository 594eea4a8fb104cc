import type { NewEvent } from './types.js';

/**
 * Appends to the event log (GET /api/events) from inside a store's own write transaction, so the event
 * commits or rolls back with the change it reports, as the index writers do for the search indexes
 * (indexWriters.ts). Listeners of EventStore.onAppend hear of it once the transaction is over.
 */
export interface EventWriter {
  append(event: NewEvent): void;
}
