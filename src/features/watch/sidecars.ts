/**
 * An XMP sidecar in a watched folder (`IMG_1.JPG.xmp`, `IMG_1.xmp`; platform/sidecarNames.ts) is never an item:
 * when it appears or changes, the items its media files made read their metadata again with it on top
 * (library's rereadMetadata). A media file imported later reads its sidecar itself (importFile.ts). The
 * sidecar's own row in `watched_files` (no item, no hash) only tells the next pass it was seen unchanged.
 * A deleted sidecar leaves the metadata it gave in place.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { readSidecar } from '../../files/sidecar.js';
import { DomainError } from '../../platform/errors.js';
import { looksLikeMedia } from '../../platform/mediaNames.js';
import { pickSidecar } from '../../platform/sidecarNames.js';
import type { Principal, Services } from '../kernel/services.js';
import { rereadMetadata } from '../library/index.js';
import type { WatchedFolder } from '../../storage/watchStore.js';

/** A file a pass saw (importFile.ts's FileSeen; not imported from there: that module imports this one). */
interface SeenFile {
  relPath: string;
  absPath: string;
  size: number;
  mtimeMs: number;
}

/** Applies a new or changed sidecar to the items of its media files; returns what happened, for the log. */
export async function applyWatchedSidecar(
  deps: Pick<Services, 'storage' | 'blobs'>,
  w: WatchedFolder,
  f: SeenFile,
  principal: Principal,
) {
  const dir = path.dirname(f.absPath);
  const relDir = path.posix.dirname(f.relPath);
  const xmp = path.basename(f.absPath);
  const names = await readdir(dir).catch(() => [] as string[]);
  const owners = names.filter((n) => looksLikeMedia(n) && pickSidecar(n, names) === xmp);
  const facts = owners.length ? await readSidecar(f.absPath) : null;
  let applied = 0;
  for (const owner of owners) {
    const rec = await deps.storage.watches.file(w.id, relDir === '.' ? owner : `${relDir}/${owner}`);
    if (!rec?.mediaId) continue; // not imported yet: its import reads the sidecar
    try {
      await rereadMetadata(deps, principal, rec.mediaId, { originalPath: path.join(dir, owner), sidecar: facts });
      applied++;
    } catch (err) {
      if (!(err instanceof DomainError && (err.code === 'not_found' || err.code === 'invalid_input'))) throw err;
    }
  }
  const base = { watchId: w.id, relPath: f.relPath, sizeBytes: f.size, mtimeMs: f.mtimeMs };
  await deps.storage.watches.putFile({ ...base, sha256: '', mediaId: null, created: false, error: null });
  return applied ? 'sidecar read' : 'sidecar kept';
}
