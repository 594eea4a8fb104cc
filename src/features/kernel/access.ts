import { forbidden, notFound } from '../../errors.js';
import { parseUuid } from '../../ids.js';
import { roleAtLeast, type Collection, type MediaRecord, type Role } from '../../storage/types.js';
import type { Principal, Services } from './services.js';

/**
 * Access checks. A key belongs to one organization: anything outside it is
 * refused. Collections answer 403 (the spec's "no access to the collection");
 * media and folders answer 404, since their ids would otherwise confirm that
 * something exists elsewhere.
 */
export function requireRole(p: Principal, need: Role): void {
  if (!roleAtLeast(p.role, need))
    throw forbidden(`this action requires the ${need} role or higher (your key has ${p.role})`);
}

export async function loadCollection(s: Services, p: Principal, rawId: string, need: Role): Promise<Collection> {
  const id = parseUuid(rawId);
  const collection = id ? await s.storage.collections.get(id) : null;
  if (!collection) throw notFound('collection not found');
  if (collection.organizationId !== p.organizationId) throw forbidden('no access to this collection');
  requireRole(p, need);
  return collection;
}

export async function loadMedia(s: Services, p: Principal, id: string, need: Role): Promise<MediaRecord> {
  const media = /^[0-9a-f]{32}$/i.test(id) ? await s.storage.media.get(id.toLowerCase()) : null;
  if (!media || media.status !== 'active' || media.organizationId !== p.organizationId)
    throw notFound('media not found');
  requireRole(p, need);
  return media;
}

export function requireOrganization(p: Principal, organizationId: string): void {
  if (parseUuid(organizationId) !== p.organizationId) throw forbidden('no access to this organization');
}
