/**
 * The setup most bench sections start from: a user, an organization it owns and one media collection in it,
 * written through the stores (so both engines' stores serve). What a section then fills is its own.
 */
import { newUuid, nowIso, pathLabel } from '../../src/platform/ids.js';
import type { Storage } from '../../src/storage/storage.js';

export interface BenchCollection {
  userId: string;
  organizationId: string;
  collectionId: string;
  /** The collection's root path label (its items' parent path). */
  root: string;
  /** When the collection was made (its createdAt and updatedAt). */
  at: string;
}

/** `name` names the user, organization and collection; its lower case is the slug and the email's local part. */
export async function benchCollection(
  st: Pick<Storage, 'accounts' | 'collections'>,
  name: string,
): Promise<BenchCollection> {
  const slug = name.toLowerCase();
  const userId = newUuid();
  await st.accounts.createUser({ id: userId, email: `${slug}@example.com`, name, createdAt: nowIso() });
  const organizationId = newUuid();
  await st.accounts.createOrganization({ id: organizationId, name, slug }, userId);
  const collectionId = newUuid();
  const at = nowIso();
  await st.collections.create({
    ...{ id: collectionId, organizationId, name, icon: null, type: 'media' },
    ...{ createdAt: at, updatedAt: at, createdById: userId },
  });
  return { userId, organizationId, collectionId, root: pathLabel(collectionId), at };
}
