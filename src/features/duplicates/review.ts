/**
 * GET /api/dataset/{id}/duplicates: the collection's duplicate groups as its latest scan found them, less
 * what changed since (members trashed, groups left with one, groups dismissed as not duplicates), each with
 * its items presented side by side (size, resolution, dates, folder) and the one we suggest to keep.
 */
import { createHash } from 'node:crypto';
import type { DuplicateGroupRecord } from '../../storage/duplicateStore.js';
import type { MediaRecord } from '../../storage/types.js';
import { loadCollection } from '../kernel/access.js';
import { presentMany } from '../kernel/present.js';
import type { Principal, Services } from '../kernel/services.js';
import { DUPLICATES_SCAN_JOB } from './scanJob.js';

export type ReviewDeps = Pick<Services, 'storage' | 'urls'>;

/** A group's id: a digest of its members (stable across listings, changes when a member goes). */
export const groupId = (mediaIds: string[]): string =>
  createHash('sha256')
    .update([...mediaIds].sort().join(','))
    .digest('hex')
    .slice(0, 24);

/** How much a person has written on an item: tag values, a description, a name of their own. */
function metadataWeight(m: MediaRecord): number {
  const tags = m.metadata.tags ?? {};
  const values = Object.values(tags).reduce((n, v) => n + (Array.isArray(v) ? v.length : 0), 0);
  return values + (typeof m.metadata.description === 'string' && m.metadata.description ? 1 : 0);
}

/**
 * The item we suggest keeping: the most pixels (a resized copy is the lesser one), then the biggest file (the
 * least recompressed), then the most metadata (tags, description), then the oldest (capture time, else upload),
 * then the lowest id (stable).
 */
export function suggestKeep(items: MediaRecord[]): MediaRecord {
  const pixels = (m: MediaRecord) => (m.width ?? 0) * (m.height ?? 0);
  const date = (m: MediaRecord) => m.takenAt ?? m.createdAt;
  return [...items].sort(
    (a, b) =>
      pixels(b) - pixels(a) ||
      b.sizeBytes - a.sizeBytes ||
      metadataWeight(b) - metadataWeight(a) ||
      (date(a) < date(b) ? -1 : date(a) > date(b) ? 1 : 0) ||
      (a.id < b.id ? -1 : 1),
  )[0];
}

export async function listDuplicates(
  deps: ReviewDeps,
  principal: Principal,
  datasetId: string,
  page: { limit: number; offset: number },
) {
  const collection = await loadCollection(deps, principal, datasetId, 'viewer');
  const [scan, stored, dismissals, active] = await Promise.all([
    deps.storage.duplicates.getScan(collection.id),
    deps.storage.duplicates.groups(collection.id),
    deps.storage.duplicates.dismissals(collection.id),
    deps.storage.jobs.activeKeys([DUPLICATES_SCAN_JOB], [collection.id]),
  ]);
  const records = new Map(
    (await deps.storage.media.getMany([...new Set(stored.flatMap((g) => g.mediaIds))]))
      .filter((m) => m.status === 'active' && m.isCurrent && m.collectionId === collection.id)
      .map((m) => [m.id, m]),
  );
  const dismissed = dismissals.map((d) => new Set(d.mediaIds));
  const live: Array<DuplicateGroupRecord & { items: MediaRecord[] }> = [];
  for (const g of stored) {
    const items = g.mediaIds.map((id) => records.get(id)).filter((m): m is MediaRecord => !!m);
    if (items.length < 2) continue;
    if (dismissed.some((set) => items.every((m) => set.has(m.id)))) continue;
    live.push({ ...g, items });
  }
  const shown = live.slice(page.offset, page.offset + page.limit);
  const groups = await Promise.all(shown.map((g) => presentGroup(deps, g)));
  return {
    scan: {
      status: active.size > 0 ? ('running' as const) : scan ? ('done' as const) : ('none' as const),
      scannedAt: scan?.scannedAt ?? null,
      modelId: scan?.modelId ?? null,
      threshold: scan?.threshold ?? null,
      items: scan?.items ?? 0,
    },
    groups,
    pagination: {
      total: live.length,
      limit: page.limit,
      offset: page.offset,
      hasMore: page.offset + shown.length < live.length,
    },
  };
}

async function presentGroup(deps: ReviewDeps, g: DuplicateGroupRecord & { items: MediaRecord[] }) {
  const keep = suggestKeep(g.items);
  const folderIds = [...new Set(g.items.map((m) => m.parentPath.split('.')).filter((l) => l.length > 1))].map(
    (labels) => labels[labels.length - 1],
  );
  const folders = new Map((await deps.storage.media.getMany(folderIds)).map((f) => [f.path, f.name]));
  const presented = await presentMany(deps, g.items);
  return {
    id: groupId(g.items.map((m) => m.id)),
    kind: g.kind,
    similarity: Math.round(g.similarity * 1e4) / 1e4,
    keepId: keep.id,
    items: presented.map((m, i) => ({
      ...m,
      folder: { path: g.items[i].parentPath, name: folders.get(g.items[i].parentPath) ?? null },
    })),
  };
}
