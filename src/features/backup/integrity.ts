import path from 'node:path';
import type { Services } from '../kernel/services.js';
import type { BlobReference } from '../../storage/types.js';
import { readRehashState, type Finding, type RehashState } from './rehash.js';

/** Findings named at most per kind (the counts say how many in all). */
const NAMED = 1000;

/**
 * The integrity report: originals missing from the store, derived files (frames, renditions, crops) missing,
 * items without thumbnails, files no row points to (untracked), and the originals the re-hash found rotten.
 * Each list names at most NAMED findings; `counts` has them all.
 */
export interface IntegrityReport {
  checkedAt: string;
  /** Items (not folders) walked, any status. */
  items: number;
  /** Distinct blobs the rows reference. */
  files: number;
  missingOriginals: Finding[];
  missingDerived: Finding[];
  /** Active items whose frames have no renditions (thumbnails) at all. */
  withoutRenditions: string[];
  /** Stored blobs no row references (older than the age guard); null when the store cannot be listed. */
  untracked: Array<{ key: string; size: number }> | null;
  /** Originals whose bytes no longer match their key, from the last re-hash (npm run check). */
  rotten: Finding[];
  rehash: RehashState | null;
  counts: {
    missingOriginals: number;
    missingDerived: number;
    withoutRenditions: number;
    untracked: number;
    rotten: number;
  };
  /** Nothing missing, untracked or rotten. */
  ok: boolean;
}

export type IntegrityDeps = Pick<Services, 'storage' | 'blobs'> & { config: Pick<Services['config'], 'dataDir'> };

/** Where the re-hash keeps its position and findings. */
export const rehashStateFile = (dataDir: string) => path.join(dataDir, 'integrity', 'rehash.json');

/**
 * The existence check (fast: a stat per file, no reading): every blob the rows reference, every stored blob
 * against the rows, the items lacking renditions; with the saved findings of the re-hash. Untracked files are
 * those older than `untrackedMinAgeMs`, so an upload whose row is being written right now is not one.
 */
export async function checkIntegrity(deps: IntegrityDeps, untrackedMinAgeMs = 3_600_000): Promise<IntegrityReport> {
  const checkedAt = new Date().toISOString();
  const walk = await walkReferences(deps);
  const withoutRenditions = await itemsWithoutRenditions(deps);
  const untracked = await untrackedBlobs(deps, untrackedMinAgeMs);
  const rehash = await readRehashState(rehashStateFile(deps.config.dataDir));
  const rotten = rehash?.rotten ?? [];
  const counts = {
    missingOriginals: walk.missingOriginals.length,
    missingDerived: walk.missingDerived.length,
    withoutRenditions: withoutRenditions.length,
    untracked: untracked?.length ?? 0,
    rotten: rotten.length,
  };
  return {
    checkedAt,
    items: walk.items,
    files: walk.files,
    missingOriginals: walk.missingOriginals.slice(0, NAMED),
    missingDerived: walk.missingDerived.slice(0, NAMED),
    withoutRenditions: withoutRenditions.slice(0, NAMED),
    untracked: untracked?.slice(0, NAMED) ?? null,
    rotten: rotten.slice(0, NAMED),
    rehash,
    counts,
    ok: Object.values(counts).every((n) => n === 0),
  };
}

/** Every referenced blob looked up once: which are missing, originals apart from derived files. */
async function walkReferences({ storage, blobs }: IntegrityDeps) {
  const missingOriginals: Finding[] = [];
  const missingDerived: Finding[] = [];
  const seen = new Map<string, boolean>();
  let items = 0;
  let after: string | null = '';
  while (after !== null) {
    const page: { references: BlobReference[]; next: string | null } = await storage.media.blobReferences(500, after);
    items += new Set(page.references.map((r) => r.mediaId)).size;
    for (const ref of page.references) {
      let present = seen.get(ref.blobKey);
      if (present === undefined) seen.set(ref.blobKey, (present = await blobs.exists(ref.blobKey)));
      if (present) continue;
      const finding = { mediaId: ref.mediaId, blobKey: ref.blobKey, role: ref.role };
      (ref.role === 'original' ? missingOriginals : missingDerived).push(finding);
    }
    after = page.next;
  }
  return { items, files: seen.size, missingOriginals, missingDerived };
}

async function itemsWithoutRenditions({ storage }: IntegrityDeps): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const page = await storage.analysis.itemsLackingRenditions(500, ids[ids.length - 1]);
    if (page.length === 0) return ids;
    ids.push(...page);
  }
}

/** Stored blobs no row references, checked in batches with the orphan sweep's query. */
async function untrackedBlobs({ storage, blobs }: IntegrityDeps, minAgeMs: number) {
  if (!blobs.listBlobs) return null;
  const found: Array<{ key: string; size: number }> = [];
  let batch: Array<{ key: string; size: number }> = [];
  const flush = async () => {
    const referenced = await storage.media.referencedBlobKeys(batch.map((b) => b.key));
    found.push(...batch.filter((b) => !referenced.has(b.key)));
    batch = [];
  };
  for await (const blob of blobs.listBlobs()) {
    if (Date.now() - blob.mtimeMs < minAgeMs) continue;
    batch.push({ key: blob.key, size: blob.size });
    if (batch.length >= 500) await flush();
  }
  if (batch.length) await flush();
  return found;
}
