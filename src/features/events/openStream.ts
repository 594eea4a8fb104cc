import type { Readable } from 'node:stream';
import { DomainError, invalid } from '../../platform/errors.js';
import { loadCollection, requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/**
 * An event id from a client (Last-Event-ID, or `lastEventId` for clients that cannot set headers):
 * null when absent; a 400 when it is anything but a non-negative integer. This server only ever sends such
 * ids, so anything else is a client's mistake worth saying out loud rather than silently replaying from 0.
 */
export function parseEventId(raw: string | undefined): number | null {
  const text = raw?.trim() ?? '';
  if (text === '') return null;
  // At most 15 digits: every such number is exact in JavaScript (ids are SQLite integers read as numbers).
  if (!/^\d{1,15}$/.test(text))
    throw invalid('Last-Event-ID (or lastEventId) must be an event id this server sent: a non-negative integer');
  return Number(text);
}

/**
 * GET /api/events: the caller's organization's events as Server-Sent Events; with `datasetId`, item events of
 * that collection only (another organization's collection answers 403, as everywhere). Every role may follow them:
 * a viewer reads everything these events describe. `lastEventId` is the header's value when the client sent
 * one (EventSource resends it on reconnect, and it is newer than the query's), else the query's.
 */
export async function openEventStream(
  deps: Pick<Services, 'storage' | 'events'>,
  principal: Principal,
  input: { datasetId?: string; lastEventId?: string },
): Promise<Readable> {
  if (!deps.events) throw new DomainError('unavailable', 'live events are not served by this process');
  const lastEventId = parseEventId(input.lastEventId);
  requireRole(principal, 'viewer');
  const collectionId = input.datasetId ? (await loadCollection(deps, principal, input.datasetId, 'viewer')).id : null;
  return deps.events.open({ organizationId: principal.organizationId, collectionId, lastEventId });
}
