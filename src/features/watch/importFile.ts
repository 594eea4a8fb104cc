/**
 * What happens to one watched file once it has settled: imported as an upload would be (through the library
 * feature, in-process), skipped when its bytes are already an item of the collection, or — when it is gone —
 * its item soft-deleted if the folder mirrors deletions. Each outcome is recorded in `watched_files`, after
 * the item is stored: a crash in between leaves an item without its record, which the next pass finds by
 * content hash instead of importing it again.
 */
import { constants } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../../platform/errors.js';
import { sha256File } from '../../files/blobStore.js';
import { pathLabel } from '../../platform/ids.js';
import { looksLikeMedia } from '../../platform/mediaNames.js';
import { isSidecarName } from '../../platform/sidecarNames.js';
import { findSidecar } from '../../files/sidecar.js';
import type { WatchedFile, WatchedFolder } from '../../storage/watchStore.js';
import type { Principal, Services } from '../kernel/services.js';
import { createFolder, deleteMedia, lookupContent, uploadMedia } from '../library/index.js';
import { applyWatchedSidecar } from './sidecars.js';

export type WatchDeps = Pick<Services, 'config' | 'storage' | 'blobs' | 'wakeJobs' | 'urls' | 'logger'>;

/** Codes that mean "this file is not for the library", recorded rather than retried. */
const REFUSED = new Set(['unsupported_media', 'unprocessable', 'invalid_input', 'too_large']);

/** The watch acts as the admin (or, for WATCH_DIRS, the collection's creator) who set it up. */
async function watchPrincipal(deps: WatchDeps, w: WatchedFolder): Promise<Principal | null> {
  const role = await deps.storage.accounts.getMembershipRole(w.organizationId, w.createdById);
  if (!role) return null;
  return { userId: w.createdById, organizationId: w.organizationId, role: 'admin', keyId: null, sessionId: null };
}

/** Resolves (creating as needed) the folder a relative path goes into; cached per watcher run. */
export class FolderPaths {
  private readonly cache = new Map<string, string>();
  constructor(private readonly deps: WatchDeps) {}

  async resolve(principal: Principal, w: WatchedFolder, relPath: string): Promise<string | undefined> {
    const dir = path.posix.dirname(relPath);
    const names = [w.into, dir === '.' ? '' : dir].filter(Boolean).join('/');
    if (!names) return undefined;
    let parent: string | undefined;
    let sofar = '';
    for (const name of names.split('/')) {
      sofar += `/${name}`;
      const key = `${w.collectionId}${sofar}`;
      let p = this.cache.get(key);
      if (!p) {
        const folder = await createFolder(this.deps, principal, {
          collectionId: w.collectionId,
          name,
          path: parent,
          reuse: true,
        });
        p = folder.path as string;
        this.cache.set(key, p);
      }
      parent = p;
    }
    return parent;
  }

  /** Forgets every folder (one was deleted or moved meanwhile). */
  clear(): void {
    this.cache.clear();
  }
}

export interface FileSeen {
  relPath: string;
  absPath: string;
  size: number;
  mtimeMs: number;
}

/** Imports a settled file unless its record says it is unchanged; returns what happened, for the log. */
export async function importWatchedFile(deps: WatchDeps, folders: FolderPaths, w: WatchedFolder, f: FileSeen) {
  const rec = await deps.storage.watches.file(w.id, f.relPath);
  if (rec && rec.sizeBytes === f.size && rec.mtimeMs === f.mtimeMs) return 'unchanged';
  const base = { watchId: w.id, relPath: f.relPath, sizeBytes: f.size, mtimeMs: f.mtimeMs };
  if (isSidecarName(f.relPath)) {
    const principal = await watchPrincipal(deps, w);
    return principal ? applyWatchedSidecar(deps, w, f, principal) : 'no principal';
  }
  if (!looksLikeMedia(f.relPath)) {
    await deps.storage.watches.putFile({ ...base, sha256: '', mediaId: null, created: false, error: 'unsupported' });
    return 'unsupported';
  }
  const principal = await watchPrincipal(deps, w);
  if (!principal) return 'no principal';
  // Work on a copy: the watched file may change or vanish meanwhile, and the store must own its bytes.
  const temp = deps.blobs.tempPath('watch');
  try {
    await copyFile(f.absPath, temp, constants.COPYFILE_FICLONE);
    const sha256 = await sha256File(temp);
    if (rec && rec.sha256 === sha256) {
      await deps.storage.watches.putFile({ ...rec, ...base });
      return 'touched';
    }
    const outcome = await storeOnce(deps, folders, principal, w, f, temp, sha256);
    await deps.storage.watches.putFile({ ...base, sha256, ...outcome });
    if (rec?.created && rec.mediaId && rec.mediaId !== outcome.mediaId && w.mirrorDeletions)
      await deleteQuietly(deps, principal, rec.mediaId); // the file was replaced: its old item goes with it
    return outcome.error ? 'refused' : outcome.created ? 'imported' : 'already there';
  } finally {
    await rm(temp, { force: true });
  }
}

/** The item for these bytes: the collection's own when it holds them, else a new upload of the copy. */
async function storeOnce(
  deps: WatchDeps,
  folders: FolderPaths,
  principal: Principal,
  w: WatchedFolder,
  f: FileSeen,
  temp: string,
  sha256: string,
): Promise<Pick<WatchedFile, 'mediaId' | 'created' | 'error'>> {
  const name = path.posix.basename(f.relPath);
  const folderPath = await folders.resolve(principal, w, f.relPath).catch(async (err) => {
    if (!(err instanceof DomainError && err.code === 'not_found')) throw err;
    folders.clear(); // a cached folder was deleted meanwhile: resolve again from the root
    return folders.resolve(principal, w, f.relPath);
  });
  const { found } = await lookupContent(deps, principal, w.collectionId, [sha256]);
  if (found[0]) {
    // Made by this watch before a crash lost its record (same folder, same name)? Then it is still ours.
    const ours = found[0].name === name && found[0].parentPath === (folderPath ?? pathLabel(w.collectionId));
    return { mediaId: found[0].mediaId, created: ours, error: null };
  }
  try {
    const record = await uploadMedia(deps, principal, {
      collectionId: w.collectionId,
      path: folderPath,
      name,
      file: { tempPath: temp, originalName: name, sha256 },
      sidecarPath: await findSidecar(f.absPath),
    });
    // A Live Photo's movie joins its still (another file's item): this file made no item of its own.
    return { mediaId: record.id, created: record.name === name, error: null };
  } catch (err) {
    if (err instanceof DomainError && REFUSED.has(err.code))
      return { mediaId: null, created: false, error: err.message };
    throw err;
  }
}

async function deleteQuietly(deps: WatchDeps, principal: Principal, mediaId: string): Promise<void> {
  await deleteMedia(deps, principal, mediaId).catch((err) => {
    if (!(err instanceof DomainError && err.code === 'not_found')) throw err;
  });
}

/** A watched file is gone: forget it, and soft-delete the item it made when the folder mirrors deletions. */
export async function forgetWatchedFile(deps: WatchDeps, w: WatchedFolder, relPath: string) {
  const rec = await deps.storage.watches.file(w.id, relPath);
  if (!rec) return 'unknown';
  if (w.mirrorDeletions && rec.created && rec.mediaId) {
    const principal = await watchPrincipal(deps, w);
    if (principal) await deleteQuietly(deps, principal, rec.mediaId);
  }
  await deps.storage.watches.removeFile(w.id, relPath);
  return w.mirrorDeletions && rec.created ? 'deleted' : 'forgotten';
}
