import { invalid } from '../../platform/errors.js';
import { newUuid, nowIso } from '../../platform/ids.js';
import type { Collection } from '../../storage/types.js';
import { loadCollection, loadOrganizationId, requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/** Collection as compat.md shows it: `{ id, name, icon?, type, organizationId }` plus timestamps. */
export const presentCollection = (c: Collection) => ({
  id: c.id,
  name: c.name,
  icon: c.icon,
  type: c.type,
  organizationId: c.organizationId,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

export async function listCollections(deps: Pick<Services, 'storage'>, principal: Principal, orgId: string) {
  const id = await loadOrganizationId(deps, principal, orgId);
  return (await deps.storage.collections.list(id)).map(presentCollection);
}

export async function createCollection(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  orgId: string,
  input: { name: string; icon?: string | null },
) {
  const organizationId = await loadOrganizationId(deps, principal, orgId);
  requireRole(principal, 'admin');
  const name = input.name.trim();
  if (!name) throw invalid('name must not be empty');
  const at = nowIso();
  const c = await deps.storage.collections.create({
    id: newUuid(),
    organizationId,
    name,
    icon: input.icon ?? null,
    type: 'media',
    createdAt: at,
    updatedAt: at,
    createdById: principal.userId,
  });
  return presentCollection(c);
}

export async function getCollection(deps: Pick<Services, 'storage'>, principal: Principal, id: string) {
  return presentCollection(await loadCollection(deps, principal, id, 'viewer'));
}

export async function updateCollection(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  id: string,
  patch: { name?: string; icon?: string | null },
) {
  const c = await loadCollection(deps, principal, id, 'admin');
  if (patch.name !== undefined && !patch.name.trim()) throw invalid('name must not be empty');
  const updated = await deps.storage.collections.update(c.id, { name: patch.name?.trim(), icon: patch.icon }, nowIso());
  return presentCollection(updated!);
}
