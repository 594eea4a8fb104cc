import type { BlobReference, ProcessingStatus } from '../../storage/types.js';
import { requireRole } from '../kernel/access.js';
import type { Principal, Services } from '../kernel/services.js';

type UsageDeps = Pick<Services, 'storage' | 'blobs'>;

interface CollectionUsage {
  id: string;
  name: string;
  /** Live and trashed items (not deleted) by processing status. */
  items: Record<ProcessingStatus, number>;
  /** Items by record status (`active`, `deleted`, …). */
  byStatus: Record<string, number>;
  /** Original files of the items not deleted, as uploaded (a file stored once for two items counts twice). */
  originalBytes: number;
  /** Original files of deleted items, still held until they are purged. */
  deletedBytes: number;
  /** Frames' files, renditions, crops and web copies (each stored file once); null unless measured. */
  derivedBytes: number | null;
}

const emptyItems = (): Record<ProcessingStatus, number> => ({ pending: 0, processing: 0, ready: 0, failed: 0 });

/**
 * GET /api/admin/storage (admin): bytes and items per collection of the caller's organization, the totals, and the
 * database's size. `derived`: also measure the derived files (a stat per stored file of the whole library, as the
 * integrity report does: slow in a big library, so asked for).
 */
export async function storageUsage(deps: UsageDeps, principal: Principal, opts: { derived: boolean }) {
  requireRole(principal, 'admin');
  const [rows, collections, databaseBytes, org] = await Promise.all([
    deps.storage.usage.byCollection(principal.organizationId),
    deps.storage.collections.list(principal.organizationId),
    deps.storage.usage.databaseBytes(),
    deps.storage.accounts.getOrganization(principal.organizationId),
  ]);
  const byId = new Map<string, CollectionUsage>();
  for (const c of collections)
    byId.set(c.id, {
      id: c.id,
      name: c.name,
      items: emptyItems(),
      byStatus: {},
      originalBytes: 0,
      deletedBytes: 0,
      derivedBytes: opts.derived ? 0 : null,
    });
  for (const r of rows) {
    const c = byId.get(r.collectionId);
    if (!c) continue;
    c.byStatus[r.status] = (c.byStatus[r.status] ?? 0) + r.items;
    if (r.status === 'deleted') c.deletedBytes += r.bytes;
    else {
      c.items[r.processingStatus] += r.items;
      c.originalBytes += r.bytes;
    }
  }
  if (opts.derived) await measureDerived(deps, principal.organizationId, byId);
  const all = [...byId.values()];
  const sum = (f: (c: CollectionUsage) => number) => all.reduce((n, c) => n + f(c), 0);
  return {
    organization: {
      id: principal.organizationId,
      name: org?.name ?? '',
      items: sum((c) => c.items.pending + c.items.processing + c.items.ready + c.items.failed),
      originalBytes: sum((c) => c.originalBytes),
      deletedBytes: sum((c) => c.deletedBytes),
      derivedBytes: opts.derived ? sum((c) => c.derivedBytes ?? 0) : null,
      storageBytes: org?.storageBytes ?? 0,
    },
    collections: all,
    database: { bytes: databaseBytes },
  };
}

/** Walks every item's stored files (integrity report's walk) and adds each derived file's size once to its collection. */
async function measureDerived(deps: UsageDeps, organizationId: string, byId: Map<string, CollectionUsage>) {
  const seen = new Set<string>();
  let after: string | null = '';
  while (after !== null) {
    const page: { references: BlobReference[]; next: string | null } = await deps.storage.media.blobReferences(
      500,
      after,
    );
    const derived = page.references.filter((r) => r.role !== 'original' && !seen.has(r.blobKey));
    const items = await deps.storage.media.getMany([...new Set(derived.map((r) => r.mediaId))]);
    const collectionOf = new Map(
      items.filter((m) => m.organizationId === organizationId).map((m) => [m.id, m.collectionId]),
    );
    for (const ref of derived) {
      const collection = byId.get(collectionOf.get(ref.mediaId) ?? '');
      if (!collection || seen.has(ref.blobKey)) continue;
      seen.add(ref.blobKey);
      collection.derivedBytes! += (await deps.blobs.stat(ref.blobKey))?.size ?? 0;
    }
    after = page.next;
  }
}
