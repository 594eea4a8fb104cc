import { forbidden, notFound } from '../../platform/errors.js';
import { parseUuid } from '../../platform/ids.js';
import { roleAtLeast, type Collection, type MediaRecord, type Role } from '../../storage/types.js';
import type { Principal, Services } from './services.js';

/**
 * Access checks, shared by every feature. A key belongs to one organization:
 * anything outside it is refused. Organizations and collections answer 403
 * (the spec's "no access to the collection"); media, folders, objects, keys
 * and jobs answer 404, since their ids would otherwise confirm that something
 * exists elsewhere.
 */
export function requireRole(principal: Principal, need: Role): void {
  if (!roleAtLeast(principal.role, need))
    throw forbidden(
      `this action requires the ${need} role or higher (${principal.keyId === null ? 'you have' : 'your key has'} ${principal.role})`,
    );
}

/**
 * 403 unless `organizationId` (raw, as a client sent it, or as stored) is the caller's organization.
 * `what` names the thing refused in the message: "no access to this <what>".
 */
export function requireOrganization(
  principal: Pick<Principal, 'organizationId'>,
  organizationId: string,
  what: 'organization' | 'collection' = 'organization',
): void {
  if (parseUuid(organizationId) !== principal.organizationId) throw forbidden(`no access to this ${what}`);
}

/** An organization id from a request: 404 when no such organization exists, 403 when it is not the caller's. */
export async function loadOrganizationId(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  rawId: string,
): Promise<string> {
  const id = parseUuid(rawId);
  if (!id || !(await deps.storage.accounts.getOrganization(id))) throw notFound('organization not found');
  requireOrganization(principal, id);
  return id;
}

/** Whether a record lives in the caller's organization. */
export const inCallersOrganization = (
  principal: Pick<Principal, 'organizationId'>,
  record: { organizationId: string },
): boolean => record.organizationId === principal.organizationId;

/**
 * The record when it exists in the caller's organization; otherwise a 404 with `notFoundMessage`,
 * the same answer as for an id that exists nowhere.
 */
export function requireInOrganization<T extends { organizationId: string }>(
  principal: Pick<Principal, 'organizationId'>,
  record: T | null | undefined,
  notFoundMessage: string,
): T {
  if (!record || !inCallersOrganization(principal, record)) throw notFound(notFoundMessage);
  return record;
}

export async function loadCollection(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  rawId: string,
  need: Role,
): Promise<Collection> {
  const id = parseUuid(rawId);
  const collection = id ? await deps.storage.collections.get(id) : null;
  if (!collection) throw notFound('collection not found');
  requireOrganization(principal, collection.organizationId, 'collection');
  requireRole(principal, need);
  return collection;
}

export async function loadMedia(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  id: string,
  need: Role,
): Promise<MediaRecord> {
  const media = /^[0-9a-f]{32}$/i.test(id) ? await deps.storage.media.get(id.toLowerCase()) : null;
  const active = requireInOrganization(principal, media?.status === 'active' ? media : null, 'media not found');
  requireRole(principal, need);
  return active;
}
