import { forbidden, notFound } from '../../platform/errors.js';
import { parseUuid } from '../../platform/ids.js';
import type { Services } from '../kernel/services.js';

/**
 * An organization id a signed-in person names (switching organization): 404 when there is no such
 * organization, 403 when the user is not a member. The same answers as loadOrganizationId gives a key.
 */
export async function loadOrganizationIdForUser(
  deps: Pick<Services, 'storage'>,
  userId: string,
  rawId: string,
): Promise<string> {
  const id = parseUuid(rawId);
  if (!id || !(await deps.storage.accounts.getOrganization(id))) throw notFound('organization not found');
  if (!(await deps.storage.accounts.getMembershipRole(id, userId))) throw forbidden('no access to this organization');
  return id;
}

/** Where a new session starts: the user's oldest organization. */
export async function firstOrganizationId(deps: Pick<Services, 'storage'>, userId: string): Promise<string> {
  const [first] = await deps.storage.accounts.listOrganizationsForUser(userId);
  if (!first) throw forbidden('this account belongs to no organization');
  return first.id;
}
