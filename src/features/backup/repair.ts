import path from 'node:path';
import type { Services } from '../kernel/services.js';
import { enqueueIngest, enqueueRenditions } from '../ingest/index.js';
import type { IntegrityReport } from './integrity.js';

/** What a repair did: queued jobs and files set aside. Originals are never deleted nor changed. */
export interface RepairResult {
  /** Items whose thumbnails were queued to be made again (the `renditions` job). */
  renditionsQueued: number;
  /** Items queued for ingest again (a frame or a crop is gone; remade from the original). */
  reanalysisQueued: number;
  /** Untracked files moved to the quarantine folder. */
  quarantined: number;
  /** Where they went. */
  quarantineDir: string;
}

export type RepairDeps = Pick<Services, 'storage' | 'blobs' | 'config' | 'events' | 'wakeJobs'>;

/** `DATA_DIR/quarantine`: untracked files, set aside for a person to judge. */
export const quarantineDir = (dataDir: string) => path.join(dataDir, 'quarantine');

/**
 * Repairs what is safe to repair from a report: missing renditions are queued to be made again; an item whose
 * frame or crop file is gone is queued for ingest again (when its original is there: that is what frames are
 * made from); untracked files move to the quarantine folder, each asked once more just before whether a row
 * references it now (an upload finishing). Missing or rotten originals are only reported: a backup restores them.
 * Only the named findings are repaired (the report names at most a thousand of a kind); run it again for more.
 */
export async function repairIntegrity(
  deps: RepairDeps,
  report: IntegrityReport,
  untrackedMinAgeMs = 3_600_000,
): Promise<RepairResult> {
  const lostOriginals = new Set(report.missingOriginals.map((f) => f.mediaId));
  const live = new Set(
    (await deps.storage.media.getMany([...new Set(report.missingDerived.map((f) => f.mediaId))]))
      .filter((m) => m.status === 'active')
      .map((m) => m.id),
  );
  const reanalyse = new Set<string>();
  const rerender = new Set(report.withoutRenditions);
  for (const f of report.missingDerived) {
    if (!live.has(f.mediaId) || lostOriginals.has(f.mediaId)) continue;
    if (f.role === 'thumbnail' || f.role === 'preview') rerender.add(f.mediaId);
    else reanalyse.add(f.mediaId);
  }
  for (const id of reanalyse) await enqueueIngest(deps, id);
  for (const id of rerender) if (!reanalyse.has(id)) await enqueueRenditions(deps, id);
  deps.wakeJobs();
  const dir = quarantineDir(deps.config.dataDir);
  let quarantined = 0;
  const keys = (report.untracked ?? []).map((u) => u.key);
  if (deps.blobs.quarantine && keys.length > 0) {
    const referenced = await deps.storage.media.referencedBlobKeys(keys);
    for (const key of keys.filter((k) => !referenced.has(k)))
      if (await deps.blobs.quarantine(key, dir, untrackedMinAgeMs)) quarantined++;
  }
  return {
    renditionsQueued: [...rerender].filter((id) => !reanalyse.has(id)).length,
    reanalysisQueued: reanalyse.size,
    quarantined,
    quarantineDir: dir,
  };
}

/**
 * Moves every stored blob no row references (written at least `minAgeMs` ago) to the quarantine folder: after a
 * restore over a library (--force), the files of uploads newer than the backup, which the start-up orphan sweep
 * would otherwise delete. Returns how many moved; none where the store cannot be listed.
 */
export async function quarantineUntracked(
  deps: Pick<Services, 'storage' | 'blobs'> & { config: Pick<Services['config'], 'dataDir'> },
  minAgeMs: number,
): Promise<number> {
  const { blobs, storage } = deps;
  if (!blobs.listBlobs || !blobs.quarantine) return 0;
  const dir = quarantineDir(deps.config.dataDir);
  let moved = 0;
  let batch: string[] = [];
  const flush = async () => {
    const referenced = await storage.media.referencedBlobKeys(batch);
    for (const key of batch.filter((k) => !referenced.has(k))) if (await blobs.quarantine!(key, dir, minAgeMs)) moved++;
    batch = [];
  };
  // Listed first, moved after: the walk does not see its own moves.
  const keys: string[] = [];
  for await (const blob of blobs.listBlobs()) keys.push(blob.key);
  for (const key of keys) {
    batch.push(key);
    if (batch.length >= 500) await flush();
  }
  if (batch.length) await flush();
  return moved;
}
