import { invalid } from '../../platform/errors.js';
import { loadCollection } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

/** At most this many hashes in one lookup (an import asks in batches). */
export const LOOKUP_MAX_HASHES = 1000;
const SHA256_RE = /^[0-9a-f]{64}$/;

/**
 * Which of these content hashes (sha256 of the original file) are already items of the collection: the
 * importer's "already in the library?" without sending the bytes. Read access suffices: it tells only what a
 * viewer can list anyway. "In the library" means an active item (any version) of this collection.
 */
export async function lookupContent(
  deps: Pick<Services, 'storage'>,
  principal: Principal,
  collectionId: string,
  sha256s: string[],
) {
  const collection = await loadCollection(deps, principal, collectionId, 'viewer');
  if (sha256s.length > LOOKUP_MAX_HASHES) throw invalid(`sha256 takes at most ${LOOKUP_MAX_HASHES} hashes`);
  const hashes = sha256s.map((h) => h.toLowerCase());
  const bad = hashes.find((h) => !SHA256_RE.test(h));
  if (bad !== undefined) throw invalid(`sha256 must be 64 hex digits each; got ${JSON.stringify(bad.slice(0, 80))}`);
  const found = await deps.storage.media.findByContent(collection.id, hashes);
  return { found };
}
