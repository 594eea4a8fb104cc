/**
 * What an import will do, decided before any upload: the collection, the files under DIR, which of them are
 * unsupported by name, which are already in the collection (by content hash, asked of the server without
 * sending the bytes), which repeat an earlier file of the same run, and which remain to upload.
 */
import { ApiError, type ApiClient } from './client.js';
import { mapLimit, sha256File } from './hash.js';
import type { ImportOptions } from './args.js';
import path from 'node:path';
import { looksLikeMedia } from '../../platform/mediaNames.js';
import { isSidecarName, pickSidecar } from '../../platform/sidecarNames.js';
import { walk, type WalkedFile } from './walk.js';

export interface PlannedFile extends WalkedFile {
  sha256: string;
  /** Its XMP sidecar (IMG_1.JPG.xmp or IMG_1.xmp beside it), sent with it; sidecars are not items themselves. */
  sidecar?: string;
}

export interface ImportPlan {
  dataset: { id: string; name: string; created: boolean };
  files: number;
  /** Hidden and housekeeping entries left out by the walk. */
  ignored: string[];
  /** Not an image or video by name, or unreadable (with why). */
  unsupported: Array<{ relPath: string; reason: string }>;
  /** Already items of the collection: file → the item's id. */
  inLibrary: Array<{ relPath: string; mediaId: string }>;
  /** Same bytes as an earlier file of this run: file → that file. */
  duplicates: Array<{ relPath: string; sameAs: string }>;
  upload: PlannedFile[];
}

interface Dataset {
  id: string;
  name: string;
}

/** The collection named by id or name (created, unless a dry run, when a name is new); the only one if unnamed. */
export async function resolveDataset(
  client: ApiClient,
  wanted: string | undefined,
  dryRun: boolean,
): Promise<ImportPlan['dataset']> {
  const me = await client.json<{ organizationId: string }>('GET', '/api/me');
  const { datasets } = await client.json<{ datasets: Dataset[] }>(
    'GET',
    `/api/organization/${me.organizationId}/datasets`,
  );
  if (wanted === undefined) {
    if (datasets.length === 1) return { ...pick(datasets[0]), created: false };
    const names = datasets.map((d) => `"${d.name}"`).join(', ') || 'none yet';
    throw new ApiError(400, 'usage', `name the collection with --collection (the organization has: ${names})`);
  }
  const byId = datasets.find((d) => d.id === wanted || d.id.replace(/-/g, '') === wanted.toLowerCase());
  const byName = datasets.filter((d) => d.name.toLowerCase() === wanted.toLowerCase());
  if (byId) return { ...pick(byId), created: false };
  if (byName.length > 1) throw new ApiError(400, 'usage', `several collections are named "${wanted}": give its id`);
  if (byName.length === 1) return { ...pick(byName[0]), created: false };
  if (dryRun) return { id: '', name: wanted, created: true };
  const r = await client.json<{ dataset: Dataset }>('POST', `/api/organization/${me.organizationId}/datasets`, {
    name: wanted,
  });
  return { ...pick(r.dataset), created: true };
}

const pick = (d: Dataset) => ({ id: d.id, name: d.name });

/** Lookup batch: the route takes at most 1000 hashes. */
const LOOKUP_BATCH = 1000;

/** Which hashes the collection holds already: sha256 → media id. */
async function lookupAll(client: ApiClient, datasetId: string, hashes: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (!datasetId) return found; // a collection a dry run would create holds nothing
  for (let i = 0; i < hashes.length; i += LOOKUP_BATCH) {
    const r = await client.json<{ found: Array<{ sha256: string; mediaId: string }> }>(
      'POST',
      `/api/dataset/${datasetId}/media/lookup`,
      { sha256: hashes.slice(i, i + LOOKUP_BATCH) },
    );
    for (const f of r.found) found.set(f.sha256, f.mediaId);
  }
  return found;
}

export async function planImport(
  client: ApiClient,
  opts: ImportOptions,
  onHashed: (done: number, total: number) => void = () => undefined,
): Promise<ImportPlan> {
  const dataset = await resolveDataset(client, opts.collection, opts.dryRun);
  const walked = await walk(opts.dir);
  const unsupported: ImportPlan['unsupported'] = [];
  const sidecarsIn = new Map<string, Map<string, string>>(); // folder → sidecar name → absolute path
  for (const f of walked.files.filter((w) => isSidecarName(w.relPath))) {
    const dir = path.posix.dirname(f.relPath);
    if (!sidecarsIn.has(dir)) sidecarsIn.set(dir, new Map());
    sidecarsIn.get(dir)!.set(path.posix.basename(f.relPath), f.absPath);
  }
  const sidecarOf = (relPath: string) => {
    const names = sidecarsIn.get(path.posix.dirname(relPath));
    const name = names && pickSidecar(path.posix.basename(relPath), names.keys());
    return name ? names.get(name) : undefined;
  };
  const media = walked.files.filter((f) => {
    if (isSidecarName(f.relPath)) return false;
    if (looksLikeMedia(f.relPath)) return true;
    unsupported.push({ relPath: f.relPath, reason: 'not an image or video (by its name)' });
    return false;
  });
  let hashed = 0;
  const hashes = await mapLimit(media, Math.max(2, opts.concurrency), async (f) => {
    const h = await sha256File(f.absPath).catch((err: NodeJS.ErrnoException) => {
      unsupported.push({ relPath: f.relPath, reason: `unreadable: ${err.code ?? err.message}` });
      return null;
    });
    onHashed(++hashed, media.length);
    return h;
  });
  const found = await lookupAll(client, dataset.id, [...new Set(hashes.filter((h): h is string => h !== null))]);
  const plan: ImportPlan = {
    dataset,
    files: walked.files.length,
    ignored: walked.skipped,
    unsupported,
    inLibrary: [],
    duplicates: [],
    upload: [],
  };
  const firstOf = new Map<string, string>();
  media.forEach((f, i) => {
    const sha256 = hashes[i];
    if (sha256 === null) return;
    const mediaId = found.get(sha256);
    const earlier = firstOf.get(sha256);
    if (mediaId) plan.inLibrary.push({ relPath: f.relPath, mediaId });
    else if (earlier) plan.duplicates.push({ relPath: f.relPath, sameAs: earlier });
    else {
      firstOf.set(sha256, f.relPath);
      const sidecar = sidecarOf(f.relPath);
      plan.upload.push({ ...f, sha256, ...(sidecar ? { sidecar } : {}) });
    }
  });
  return plan;
}
